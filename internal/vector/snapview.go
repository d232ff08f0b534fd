package vector

import (
	"bufio"
	"hash/crc32"
	"io"
	"math"
)

// Frozen is a point-in-time view of an Index for writing a snapshot while
// the index keeps changing. Freeze copies only the small per-node arrays
// writers modify in place (IDs, levels, tombstones, offsets, attributes and
// the upper-layer rows: about 20 bytes per node plus the few nodes above
// layer 0) and shares the rest:
//   - the vector chunks, which are append-only: a node's vector slot is
//     written once before the node is published and never again (an update
//     is a new node; compaction builds new chunks);
//   - the layer-0 adjacency chunks (260 MB at 1M nodes and M 32), copy on
//     write: Freeze marks them shared, and a writer about to change a row
//     copies that chunk first (ownL0), so the view keeps the old one.
//
// So freezing a 1M × 1024 index copies about 20 MB instead of 4.4 GB, and
// writers wait only for that copy.
type Frozen struct {
	cfg      Config
	dim      int
	l0Stride int
	vecs     [][]float32 // shared, read only below len(ids)
	l0       [][]uint32  // shared layer-0 chunks, read only below len(ids)
	up       []uint32
	ids      []uint64
	level    []uint8
	dead     []bool
	upOff    []uint32
	keys     []pairKey
	end      []uint32
	pairs    []uint32
	entry    uint32
	top      int
	rng      []byte
	quant    *sq8 // immutable once trained
}

// Freeze returns a view of the index as of now. It waits for an in-progress
// write and blocks writers (not searches) only while copying.
func (x *Index) Freeze() *Frozen {
	x.wmu.Lock()
	defer x.wmu.Unlock()
	x.mu.RLock()
	defer x.mu.RUnlock()
	f := &Frozen{
		cfg: x.cfg, dim: x.dim, l0Stride: x.l0Stride,
		vecs:  append([][]float32(nil), x.vecs...),
		l0:    append([][]uint32(nil), x.l0...),
		up:    append([]uint32(nil), x.up...),
		ids:   append([]uint64(nil), x.ids...),
		level: append([]uint8(nil), x.level...),
		dead:  append([]bool(nil), x.dead...),
		upOff: append([]uint32(nil), x.upOff...),
		keys:  append([]pairKey(nil), x.attrs.keys...),
		end:   append([]uint32(nil), x.attrs.end...),
		pairs: append([]uint32(nil), x.attrs.pairs...),
		entry: x.entry, top: x.top, quant: x.quant,
	}
	f.rng, _ = x.pcg.MarshalBinary()
	// Writers (who alone read l0Shared) are held off by wmu.
	if len(x.l0Shared) < len(x.l0) {
		x.l0Shared = append(x.l0Shared, make([]bool, len(x.l0)-len(x.l0Shared))...)
	}
	for c := range x.l0 {
		x.l0Shared[c] = true
	}
	return f
}

// Len is the number of nodes (live and tombstoned) in the view.
func (f *Frozen) Len() int { return len(f.ids) }

// WriteTo writes a checksummed snapshot of the index to w. Searches and
// writers continue; writers wait only for the copy Freeze makes.
func (x *Index) WriteTo(w io.Writer) (int64, error) { return x.Freeze().WriteTo(w) }

// WriteTo writes the view as a snapshot that Load/ReadFrom accept.
func (f *Frozen) WriteTo(w io.Writer) (int64, error) {
	s := &snapWriter{w: bufio.NewWriterSize(w, 1<<16), h: crc32.New(crcTable), b: make([]byte, 0, 1<<16+64)}
	s.b = append(s.b, snapMagic...)
	c := f.cfg
	s.u32(snapVersion)
	s.u32(uint32(c.Dimensions))
	s.u8(uint8(c.Distance))
	s.u32(uint32(c.M))
	s.u32(uint32(c.EfConstruction))
	s.u32(uint32(c.EfSearch))
	s.u64(uint64(int64(c.ExactMax)))
	s.u64(uint64(int64(c.FilterExactMax)))
	s.u64(c.Seed)
	s.u8(uint8(c.Quantization))
	s.u32(uint32(c.QuantTrain))
	s.u64(uint64(len(f.ids)))
	s.u32(f.entry)
	s.u32(uint32(int32(f.top)))
	s.str(string(f.rng))
	s.u32(uint32(len(f.keys)))
	s.u64(uint64(len(f.pairs)))
	s.u64(uint64(len(f.up)))
	s.checksum()

	for n := range f.ids {
		s.u64(f.ids[n])
		s.u8(f.level[n])
		var d uint8
		if f.dead[n] {
			d = 1
		}
		s.u8(d)
		s.u32(f.upOff[n])
		s.u32(f.end[n])
	}
	for n := range f.ids {
		ch := f.vecs[n>>chunkBits]
		o := (n & chunkMask) * f.dim
		for _, v := range ch[o : o+f.dim] {
			s.u32(math.Float32bits(v))
		}
	}
	for c, chunk := range f.l0 {
		cnt := min(chunkSize, len(f.ids)-c<<chunkBits)
		for _, v := range chunk[:max(cnt, 0)*f.l0Stride] {
			s.u32(v)
		}
	}
	for _, v := range f.up {
		s.u32(v)
	}
	for _, k := range f.keys {
		s.str(k.Name)
		s.u8(uint8(k.Value.Type))
		s.str(k.Value.Text)
	}
	for _, p := range f.pairs {
		s.u32(p)
	}
	if f.quant == nil {
		s.u8(0)
	} else {
		s.u8(1)
		for _, v := range f.quant.lo {
			s.u32(math.Float32bits(v))
		}
		for _, v := range f.quant.step {
			s.u32(math.Float32bits(v))
		}
	}
	s.checksum()
	if s.err == nil {
		s.err = s.w.Flush()
	}
	return s.n, s.err
}
