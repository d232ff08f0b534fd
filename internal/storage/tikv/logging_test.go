package tikv

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/pingcap/log"
	"go.uber.org/zap"
)

// client-go's warnings reach Kura's slog logger, its info lines do not.
func TestClientLogsGoToSlog(t *testing.T) {
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	defer slog.SetDefault(old)
	routeClientLogs()

	log.L().Info("prewrite encounters lock", zap.Uint64("txnID", 1))
	log.L().With(zap.String("store", "s1")).Warn("region unavailable", zap.Int("attempt", 3))
	out := buf.String()
	if strings.Contains(out, "prewrite") {
		t.Errorf("an info line came through:\n%s", out)
	}
	if !strings.Contains(out, `level=WARN msg="region unavailable" component=tikv-client attempt=3 store=s1`) {
		t.Errorf("the warning did not come through as expected:\n%s", out)
	}
}
