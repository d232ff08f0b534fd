package tikv

import (
	"context"
	"log/slog"
	"slices"
	"sort"
	"sync"

	"github.com/pingcap/log"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// client-go logs through its own global zap logger (pingcap/log), by
// default every lock a prewrite meets at info level, on standard error in
// its own format. Kura hands it a zap core that writes warnings and errors
// to Kura's slog logger (slog.Default at the time of the call), so the
// server's log stays one format, with component=tikv-client.
var installLogger sync.Once

func routeClientLogs() {
	installLogger.Do(func() {
		core := slogCore{level: zapcore.WarnLevel}
		log.ReplaceGlobals(zap.New(core), &log.ZapProperties{Core: core, Level: zap.NewAtomicLevelAt(zapcore.WarnLevel)})
	})
}

// slogCore is a zapcore.Core writing to slog.Default.
type slogCore struct {
	level  zapcore.Level
	fields []zapcore.Field
}

func (c slogCore) Enabled(l zapcore.Level) bool { return l >= c.level }

func (c slogCore) With(fields []zapcore.Field) zapcore.Core {
	c.fields = append(slices.Clip(c.fields), fields...)
	return c
}

func (c slogCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

func (c slogCore) Write(e zapcore.Entry, fields []zapcore.Field) error {
	enc := zapcore.NewMapObjectEncoder()
	for _, f := range c.fields {
		f.AddTo(enc)
	}
	for _, f := range fields {
		f.AddTo(enc)
	}
	keys := make([]string, 0, len(enc.Fields))
	for k := range enc.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	attrs := make([]any, 0, 2+2*len(keys))
	attrs = append(attrs, "component", "tikv-client")
	for _, k := range keys {
		attrs = append(attrs, k, enc.Fields[k])
	}
	level := slog.LevelWarn
	if e.Level >= zapcore.ErrorLevel {
		level = slog.LevelError
	}
	slog.Default().Log(context.Background(), level, e.Message, attrs...)
	return nil
}

func (slogCore) Sync() error { return nil }
