package vector

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
)

// Snapshot layout (little-endian):
//
//	magic "KURAVEC1"
//	header: version, config (v2: + quantization u8, quantTrain u32), node
//	        count, entry, top layer, RNG state, pair count, attribute-pair
//	        count, upper-slab length; CRC-32C
//	body:   per node (id u64, level u8, dead u8, upOff u32, attrEnd u32);
//	        vectors (f32); layer-0 rows (u32, 1+2M per node); upper slab (u32);
//	        interned pairs (name, type, text); node attribute pair IDs (u32);
//	        v2: SQ8 trained u8, then lo and step (f32 × dimensions each) when
//	        trained; CRC-32C of the body
//
// The SQ8 codes are not stored: they are re-derived from the float32 vectors
// and the stored ranges on load, which gives the same codes bit for bit.
// Version 1 snapshots (no quantisation) are still read.
const (
	snapMagic   = "KURAVEC1"
	snapVersion = 2
	maxText     = 1 << 20
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

type snapWriter struct {
	w   *bufio.Writer
	h   hash.Hash32
	n   int64
	b   []byte
	err error
}

func (s *snapWriter) flush() {
	if s.err != nil || len(s.b) == 0 {
		s.b = s.b[:0]
		return
	}
	s.h.Write(s.b)
	m, err := s.w.Write(s.b)
	s.n += int64(m)
	s.err = err
	s.b = s.b[:0]
}

func (s *snapWriter) maybeFlush() {
	if len(s.b) >= 1<<16 {
		s.flush()
	}
}

func (s *snapWriter) u8(v uint8)   { s.b = append(s.b, v); s.maybeFlush() }
func (s *snapWriter) u32(v uint32) { s.b = binary.LittleEndian.AppendUint32(s.b, v); s.maybeFlush() }
func (s *snapWriter) u64(v uint64) { s.b = binary.LittleEndian.AppendUint64(s.b, v); s.maybeFlush() }
func (s *snapWriter) str(v string) {
	s.u32(uint32(len(v)))
	s.b = append(s.b, v...)
	s.maybeFlush()
}

// checksum writes the CRC of everything since the last checksum.
func (s *snapWriter) checksum() {
	s.flush()
	sum := s.h.Sum32()
	s.h.Reset()
	s.b = binary.LittleEndian.AppendUint32(s.b, sum)
	if s.err == nil {
		m, err := s.w.Write(s.b)
		s.n += int64(m)
		s.err = err
	}
	s.b = s.b[:0]
}

type snapReader struct {
	r   *bufio.Reader
	h   hash.Hash32
	n   int64
	b   [8]byte
	err error
}

func (s *snapReader) read(p []byte) {
	if s.err != nil {
		clear(p)
		return
	}
	m, err := io.ReadFull(s.r, p)
	s.n += int64(m)
	if err != nil {
		s.err = fmt.Errorf("%w: %v", ErrCorrupt, err)
		clear(p)
		return
	}
	s.h.Write(p)
}

func (s *snapReader) u8() uint8   { s.read(s.b[:1]); return s.b[0] }
func (s *snapReader) u32() uint32 { s.read(s.b[:4]); return binary.LittleEndian.Uint32(s.b[:4]) }
func (s *snapReader) u64() uint64 { s.read(s.b[:8]); return binary.LittleEndian.Uint64(s.b[:8]) }
func (s *snapReader) str(limit int) string {
	n := s.u32()
	if s.err != nil {
		return ""
	}
	if int64(n) > int64(limit) {
		s.err = fmt.Errorf("%w: string length %d", ErrCorrupt, n)
		return ""
	}
	p := make([]byte, n)
	s.read(p)
	return string(p)
}

func (s *snapReader) verify(what string) {
	if s.err != nil {
		return
	}
	want := s.h.Sum32()
	var b [4]byte
	m, err := io.ReadFull(s.r, b[:])
	s.n += int64(m)
	if err != nil {
		s.err = fmt.Errorf("%w: %s checksum: %v", ErrCorrupt, what, err)
		return
	}
	if binary.LittleEndian.Uint32(b[:]) != want {
		s.err = fmt.Errorf("%w: %s checksum mismatch", ErrCorrupt, what)
	}
	s.h.Reset()
}

// Load reads a snapshot written by WriteTo into a new Index.
func Load(r io.Reader) (*Index, error) {
	x := &Index{}
	if _, err := x.ReadFrom(r); err != nil {
		return nil, err
	}
	return x, nil
}

// ReadFrom replaces the index contents (and configuration) with a snapshot
// read from r. On error the index is unchanged. A zero Index may be used.
func (x *Index) ReadFrom(r io.Reader) (int64, error) {
	y, n, err := readSnapshot(r)
	if err != nil {
		return n, err
	}
	x.wmu.Lock()
	defer x.wmu.Unlock()
	x.mu.Lock()
	defer x.mu.Unlock()
	x.cfg, x.dim, x.l0Stride, x.upStride, x.mL = y.cfg, y.dim, y.l0Stride, y.upStride, y.mL
	x.vecs, x.l0, x.sqn, x.ids, x.level, x.dead = y.vecs, y.l0, y.sqn, y.ids, y.level, y.dead
	x.l0Shared = nil
	x.upOff, x.up, x.byID, x.attrs = y.upOff, y.up, y.byID, y.attrs
	x.entry, x.top, x.live, x.tombs = y.entry, y.top, y.live, y.tombs
	x.pcg, x.rng = y.pcg, y.rng
	x.quant, x.codes = y.quant, y.codes
	x.pool.New = func() any { return new(searcher) }
	return n, nil
}

func readSnapshot(r io.Reader) (*Index, int64, error) {
	s := &snapReader{r: bufio.NewReaderSize(r, 1<<16), h: crc32.New(crcTable)}
	var magic [8]byte
	s.read(magic[:])
	if s.err == nil && string(magic[:]) != snapMagic {
		return nil, s.n, fmt.Errorf("%w: bad magic", ErrCorrupt)
	}
	version := s.u32()
	if s.err == nil && version != 1 && version != snapVersion {
		return nil, s.n, fmt.Errorf("%w: unsupported version %d", ErrCorrupt, version)
	}
	var c Config
	c.Dimensions = int(s.u32())
	c.Distance = Distance(s.u8())
	c.M = int(s.u32())
	c.EfConstruction = int(s.u32())
	c.EfSearch = int(s.u32())
	c.ExactMax = int(int64(s.u64()))
	c.FilterExactMax = int(int64(s.u64()))
	c.Seed = s.u64()
	if version >= 2 {
		c.Quantization = Quantization(s.u8())
		c.QuantTrain = int(s.u32())
	} else {
		c.QuantTrain = DefaultQuantTrain
	}
	nodes := s.u64()
	entry := s.u32()
	top := int(int32(s.u32()))
	rngState := s.str(256)
	npairs := s.u32()
	nattr := s.u64()
	uplen := s.u64()
	s.verify("header")
	if s.err != nil {
		return nil, s.n, s.err
	}
	cfg, err := c.withDefaults()
	if err != nil || cfg != c {
		return nil, s.n, fmt.Errorf("%w: bad configuration", ErrCorrupt)
	}
	if nodes >= math.MaxUint32 || nattr >= math.MaxUint32 || uplen >= math.MaxUint32 ||
		top < -1 || top > maxLevel || (nodes == 0 && top >= 0) {
		return nil, s.n, fmt.Errorf("%w: bad header", ErrCorrupt)
	}
	y := &Index{}
	y.init(cfg)
	if err := y.pcg.UnmarshalBinary([]byte(rngState)); err != nil {
		return nil, s.n, fmt.Errorf("%w: rng state", ErrCorrupt)
	}
	// Slices grow as data arrives, so a bogus count fails at EOF rather
	// than allocating.
	for i := uint64(0); i < nodes && s.err == nil; i++ {
		y.ids = append(y.ids, s.u64())
		y.level = append(y.level, s.u8())
		y.dead = append(y.dead, s.u8() != 0)
		y.upOff = append(y.upOff, s.u32())
		y.attrs.end = append(y.attrs.end, s.u32())
	}
	var b4 [4 * 1024]byte
	readU32s := func(dst []uint32) {
		for len(dst) > 0 && s.err == nil {
			m := min(len(dst), len(b4)/4)
			s.read(b4[:4*m])
			for i := 0; i < m; i++ {
				dst[i] = binary.LittleEndian.Uint32(b4[4*i:])
			}
			dst = dst[m:]
		}
	}
	for base := uint64(0); base < nodes && s.err == nil; base += chunkSize {
		cnt := int(min(chunkSize, nodes-base))
		vc := make([]float32, chunkSize*y.dim)
		tmp := make([]uint32, cnt*y.dim)
		readU32s(tmp)
		for i, u := range tmp {
			vc[i] = math.Float32frombits(u)
		}
		y.vecs = append(y.vecs, vc)
	}
	for base := uint64(0); base < nodes && s.err == nil; base += chunkSize {
		cnt := int(min(chunkSize, nodes-base))
		lc := make([]uint32, chunkSize*y.l0Stride)
		readU32s(lc[:cnt*y.l0Stride])
		y.l0 = append(y.l0, lc)
	}
	for done := uint64(0); done < uplen && s.err == nil; {
		m := min(uplen-done, 1<<16)
		y.up = append(y.up, make([]uint32, m)...)
		readU32s(y.up[done:])
		done += m
	}
	for i := uint32(0); i < npairs && s.err == nil; i++ {
		name := s.str(maxText)
		t := ValueType(s.u8())
		text := s.str(maxText)
		if s.err == nil && (t < TypeString || t > TypeBool) {
			s.err = fmt.Errorf("%w: bad value type", ErrCorrupt)
		}
		k := pairKey{name, Value{t, text}}
		if _, dup := y.attrs.ids[k]; dup && s.err == nil {
			s.err = fmt.Errorf("%w: duplicate pair", ErrCorrupt)
		}
		y.attrs.intern(k)
	}
	for done := uint64(0); done < nattr && s.err == nil; {
		m := min(nattr-done, 1<<16)
		y.attrs.pairs = append(y.attrs.pairs, make([]uint32, m)...)
		readU32s(y.attrs.pairs[done:])
		done += m
	}
	if version >= 2 && s.u8() != 0 && s.err == nil {
		q := &sq8{lo: make([]float32, y.dim), step: make([]float32, y.dim)}
		tmp := make([]uint32, y.dim)
		for _, dst := range [][]float32{q.lo, q.step} {
			readU32s(tmp)
			for i, u := range tmp {
				dst[i] = math.Float32frombits(u)
			}
		}
		if cfg.Quantization != QuantSQ8 {
			s.err = fmt.Errorf("%w: quantiser without SQ8", ErrCorrupt)
		}
		y.quant = q
	}
	s.verify("body")
	if s.err != nil {
		return nil, s.n, s.err
	}
	if err := y.validate(entry, top); err != nil {
		return nil, s.n, err
	}
	return y, s.n, nil
}

// validate checks a decoded snapshot's internal consistency and derives the
// in-memory indexes (ID map, norms, postings, counts).
func (y *Index) validate(entry uint32, top int) error {
	bad := func(what string) error { return errors.New(ErrCorrupt.Error() + ": " + what) }
	n := uint32(len(y.ids))
	var prevEnd uint32
	for i := uint32(0); i < n; i++ {
		lvl := int(y.level[i])
		if lvl > maxLevel {
			return bad("node level")
		}
		if lvl > 0 && uint64(y.upOff[i])+uint64(lvl*y.upStride) > uint64(len(y.up)) {
			return bad("upper-layer offset")
		}
		end := y.attrs.end[i]
		if end < prevEnd || end > uint32(len(y.attrs.pairs)) {
			return bad("attribute offsets")
		}
		prevEnd = end
		if !y.dead[i] {
			if _, dup := y.byID[y.ids[i]]; dup {
				return bad("duplicate id")
			}
			y.byID[y.ids[i]] = i
			y.live++
		} else {
			y.tombs++
		}
	}
	if prevEnd != uint32(len(y.attrs.pairs)) {
		return bad("attribute pairs")
	}
	for i := uint32(0); i < n; i++ {
		for lc := 0; lc <= int(y.level[i]); lc++ {
			r := y.row(i, lc)
			if int(r[0]) > len(r)-1 {
				return bad("adjacency count")
			}
			for _, m := range r[1 : 1+r[0]] {
				if m >= n || int(y.level[m]) < lc {
					return bad("adjacency target")
				}
			}
		}
	}
	npairs := uint32(len(y.attrs.keys))
	for i := uint32(0); i < n; i++ {
		for _, p := range y.attrs.of(i) {
			if p >= npairs {
				return bad("attribute pair id")
			}
			y.attrs.postings[p] = append(y.attrs.postings[p], i)
			if !y.dead[i] {
				y.attrs.live[p]++
			}
		}
	}
	if y.live > 0 {
		if top < 0 || entry >= n || y.dead[entry] || int(y.level[entry]) != top {
			return bad("entry point")
		}
		y.entry, y.top = entry, top
	}
	if y.cfg.Distance == Euclidean {
		y.sqn = make([]float32, n)
		for i := uint32(0); i < n; i++ {
			v := y.vec(i)
			y.sqn[i] = dot(v, v)
		}
	}
	if y.quant != nil {
		for i := range y.quant.lo {
			if !finite(y.quant.lo[i]) || !finite(y.quant.step[i]) || y.quant.step[i] < 0 {
				return bad("quantiser range")
			}
		}
		y.encodeAll()
	}
	return nil
}

func finite(f float32) bool { return !math.IsNaN(float64(f)) && !math.IsInf(float64(f), 0) }

var (
	_ io.WriterTo   = (*Index)(nil)
	_ io.ReaderFrom = (*Index)(nil)
)
