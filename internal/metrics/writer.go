package metrics

import (
	"bufio"
	"io"
	"math"
	"strconv"
	"strings"
)

// Writer writes metric families in the Prometheus text format. Errors are
// kept and returned by Flush.
type Writer struct {
	w *bufio.Writer
}

// NewWriter returns a Writer onto w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: bufio.NewWriter(w)} }

// Family starts a metric family: its HELP and TYPE (counter, gauge or
// histogram) lines.
func (w *Writer) Family(name, typ, help string) {
	w.w.WriteString("# HELP " + name + " " + escapeHelp(help) + "\n")
	w.w.WriteString("# TYPE " + name + " " + typ + "\n")
}

// Sample writes one sample: name, label pairs (name, value, name, value
// ...) and the value.
func (w *Writer) Sample(name string, value float64, labels ...string) {
	w.w.WriteString(name)
	if len(labels) > 0 {
		w.w.WriteByte('{')
		for i := 0; i+1 < len(labels); i += 2 {
			if i > 0 {
				w.w.WriteByte(',')
			}
			w.w.WriteString(labels[i] + `="` + escapeLabel(labels[i+1]) + `"`)
		}
		w.w.WriteByte('}')
	}
	w.w.WriteByte(' ')
	w.w.WriteString(formatValue(value))
	w.w.WriteByte('\n')
}

// Flush writes out what is buffered.
func (w *Writer) Flush() error { return w.w.Flush() }

func formatValue(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

var (
	labelEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
)

func escapeLabel(s string) string { return labelEscaper.Replace(s) }
func escapeHelp(s string) string  { return helpEscaper.Replace(s) }
