package ddberrtest

import (
	"errors"
	"testing"

	"github.com/kura-db/kura/internal/ddberr"
)

// Want fails t unless err is a *ddberr.Error of type typ with message msg
// (what names the case in the failure).
func Want(t testing.TB, what string, err error, typ, msg string) {
	t.Helper()
	var de *ddberr.Error
	if !errors.As(err, &de) || de.Type != typ || de.Message != msg {
		t.Errorf("%s: %v, want %s %q", what, err, typ, msg)
	}
}
