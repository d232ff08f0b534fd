package transact

import "github.com/kura-db/kura/internal/wire"

// Units are capacity units consumed on a table and on its secondary
// indexes (by name).
type Units struct {
	Table    float64
	GSI, LSI map[string]float64
}

func (u Units) total() float64 {
	s := u.Table
	for _, m := range []map[string]float64{u.GSI, u.LSI} {
		for _, v := range m {
			s += v
		}
	}
	return s
}

// add accumulates v into u.
func (u *Units) add(v Units) {
	u.Table += v.Table
	u.GSI, u.LSI = addAll(u.GSI, v.GSI), addAll(u.LSI, v.LSI)
}

// addAll adds src's units into dst (made when needed) and returns it.
func addAll(dst, src map[string]float64) map[string]float64 {
	for k, x := range src {
		if dst == nil {
			dst = make(map[string]float64, len(src))
		}
		dst[k] += x
	}
	return dst
}

// Tally sums a transaction's capacity per table, in the order tables are
// first charged, keeping reads and writes apart as DynamoDB reports them
// for transactions (ReadCapacityUnits, WriteCapacityUnits).
type Tally struct {
	order  []string
	tables map[string]*readWrite
}

type readWrite struct {
	read, write Units
}

// Add charges u to table, as reads or as writes.
func (c *Tally) Add(table string, u Units, read bool) {
	if c.tables == nil {
		c.tables = map[string]*readWrite{}
	}
	x := c.tables[table]
	if x == nil {
		x = &readWrite{}
		c.tables[table] = x
		c.order = append(c.order, table)
	}
	if read {
		x.read.add(u)
	} else {
		x.write.add(u)
	}
}

// List is the ConsumedCapacity list, or nil when mode (ReturnConsumedCapacity)
// does not ask for it.
func (c *Tally) List(mode string) []wire.ConsumedCapacity {
	if mode != "TOTAL" && mode != "INDEXES" {
		return nil
	}
	out := make([]wire.ConsumedCapacity, 0, len(c.order))
	for _, name := range c.order {
		x := c.tables[name]
		cc := wire.ConsumedCapacity{TableName: wire.Ptr(name)}
		cc.CapacityUnits, cc.ReadCapacityUnits, cc.WriteCapacityUnits = rwUnits(x.read.total(), x.write.total())
		if mode == "INDEXES" {
			t := &wire.Capacity{}
			t.CapacityUnits, t.ReadCapacityUnits, t.WriteCapacityUnits = rwUnits(x.read.Table, x.write.Table)
			cc.Table = t
			cc.GlobalSecondaryIndexes = rwCapacityMap(x.read.GSI, x.write.GSI)
			cc.LocalSecondaryIndexes = rwCapacityMap(x.read.LSI, x.write.LSI)
		}
		out = append(out, cc)
	}
	return out
}

// rwUnits is the CapacityUnits, ReadCapacityUnits and WriteCapacityUnits
// members for read and write units (a zero side is omitted).
func rwUnits(r, w float64) (total, read, write *float64) {
	total = wire.Ptr(r + w)
	if r > 0 {
		read = wire.Ptr(r)
	}
	if w > 0 {
		write = wire.Ptr(w)
	}
	return
}

func rwCapacityMap(r, w map[string]float64) map[string]wire.Capacity {
	if len(r) == 0 && len(w) == 0 {
		return nil
	}
	out := map[string]wire.Capacity{}
	for _, m := range []map[string]float64{r, w} {
		for k := range m {
			var c wire.Capacity
			c.CapacityUnits, c.ReadCapacityUnits, c.WriteCapacityUnits = rwUnits(r[k], w[k])
			out[k] = c
		}
	}
	return out
}
