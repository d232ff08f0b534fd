package jobs_test

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/jobs"
	"github.com/kura-db/kura/internal/objstore"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
)

type rec struct {
	ARN   string    `json:"arn"`
	Start time.Time `json:"start"`
	Token string    `json:"token"`
	State string    `json:"state"`
}

func (r *rec) JobARN() string      { return r.ARN }
func (r *rec) JobStart() time.Time { return r.Start }
func (r *rec) JobToken() string    { return r.Token }

type log = jobs.Log[rec, *rec]

func arns(rs []*rec) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.ARN)
	}
	return out
}

// TestLogSurvivesReload: what Save stored, a Load of a fresh Log reads
// back oldest first (by start, not by save order), and only its prefix.
func TestLogSurvivesReload(t *testing.T) {
	s := memory.New()
	var l, other log
	if _, err := l.Load(s, "mtest/"); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Load(s, "mother/"); err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1000, 0).UTC()
	for i, arn := range []string{"c", "a", "b"} {
		if err := l.Save(&rec{ARN: arn, Start: t0.Add(time.Duration(i) * time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := other.Save(&rec{ARN: "x", Start: t0}); err != nil {
		t.Fatal(err)
	}
	var again log
	recs, err := again.Load(s, "mtest/")
	if err != nil {
		t.Fatal(err)
	}
	if got := arns(recs); !slices.Equal(got, []string{"c", "a", "b"}) {
		t.Fatalf("reloaded %v", got)
	}
	if _, ok := again.Get("x"); ok {
		t.Fatal("another log's record was loaded")
	}
}

// TestSaveKeepsACopy: changing a record after Save does not change the
// log's copy; saving it again replaces the copy and keeps its place.
func TestSaveKeepsACopy(t *testing.T) {
	var l log
	if _, err := l.Load(memory.New(), "mtest/"); err != nil {
		t.Fatal(err)
	}
	r := &rec{ARN: "a", State: "IN_PROGRESS"}
	if err := l.Save(r); err != nil {
		t.Fatal(err)
	}
	r.State = "COMPLETED"
	if got, _ := l.Get("a"); got.State != "IN_PROGRESS" {
		t.Fatalf("copy changed with the caller's record: %q", got.State)
	}
	if err := l.Save(&rec{ARN: "b"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Save(r); err != nil {
		t.Fatal(err)
	}
	page, _, err := l.Page(false, "", 10, func(*rec) bool { return true })
	if got, _ := l.Get("a"); err != nil || got.State != "COMPLETED" || !slices.Equal(arns(page), []string{"a", "b"}) {
		t.Fatalf("after saving again: %+v %v %v", got, arns(page), err)
	}
}

// TestWithToken: the first record with the token among those live accepts.
func TestWithToken(t *testing.T) {
	var l log
	if _, err := l.Load(memory.New(), "mtest/"); err != nil {
		t.Fatal(err)
	}
	for _, r := range []*rec{{ARN: "a", Token: "t", State: "old"}, {ARN: "b", Token: "t"}, {ARN: "c", Token: "u"}} {
		if err := l.Save(r); err != nil {
			t.Fatal(err)
		}
	}
	if r, ok := l.WithToken("t", nil); !ok || r.ARN != "a" {
		t.Fatalf("WithToken(t) = %+v %v", r, ok)
	}
	if r, ok := l.WithToken("t", func(r *rec) bool { return r.State != "old" }); !ok || r.ARN != "b" {
		t.Fatalf("WithToken(t, live) = %+v %v", r, ok)
	}
	if _, ok := l.WithToken("v", nil); ok {
		t.Fatal("an unknown token found a record")
	}
}

// TestPage: pages of limit records with the token of the last one while
// more may follow, in either order; an unknown token is refused.
func TestPage(t *testing.T) {
	var l log
	if _, err := l.Load(memory.New(), "mtest/"); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if err := l.Save(&rec{ARN: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	odd := func(r *rec) bool { return r.ARN != "2" }
	for _, tc := range []struct {
		newest bool
		next   string
		want   []string
		token  string
	}{
		{false, "", []string{"0", "1"}, "1"},
		{false, "1", []string{"3", "4"}, ""},
		{true, "", []string{"4", "3"}, "3"},
		{true, "3", []string{"1", "0"}, ""},
	} {
		page, next, err := l.Page(tc.newest, tc.next, 2, odd)
		if err != nil || !slices.Equal(arns(page), tc.want) || next != tc.token {
			t.Errorf("Page(%v, %q) = %v %q %v, want %v %q", tc.newest, tc.next, arns(page), next, err, tc.want, tc.token)
		}
	}
	_, _, err := l.Page(false, "nope", 2, odd)
	var de *ddberr.Error
	if !errors.As(err, &de) || de.Message != "Invalid NextToken" {
		t.Fatalf("unknown token: %v", err)
	}
}

// TestFailure: S3's errors become DynamoDB's FailureCode values.
func TestFailure(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code string
	}{
		{objstore.ErrNoSuchBucket, "S3NoSuchBucket"},
		{fmt.Errorf("put: %w", objstore.ErrAccessDenied), "S3AccessDenied"},
		{objstore.ErrInvalidKey, "S3InvalidKey"},
		{errors.New("disk on fire"), "UNKNOWN"},
	} {
		if code, msg := jobs.Failure(tc.err); code != tc.code || msg == "" {
			t.Errorf("Failure(%v) = %q %q, want code %q", tc.err, code, msg, tc.code)
		}
	}
}

// TestContextEndsAtClose: a job's context is cancelled when the engine
// closes.
func TestContextEndsAtClose(t *testing.T) {
	closing := make(chan struct{})
	ctx, cancel := jobs.Context(closing)
	defer cancel()
	close(closing)
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("context not cancelled at close")
	}
}

// TestNewARN: the table's ARN, the kind, 14 digits of milliseconds and
// eight hex digits.
func TestNewARN(t *testing.T) {
	arn := jobs.NewARN("eu-west-1", "123456789012", "t", "export", time.UnixMilli(1700000000123))
	if !regexp.MustCompile(`^arn:aws:dynamodb:eu-west-1:123456789012:table/t/export/01700000000123-[0-9a-f]{8}$`).MatchString(arn) {
		t.Fatalf("NewARN = %q", arn)
	}
}

// TestFind: a missing record is named by the caller's error.
func TestFind(t *testing.T) {
	var l log
	if _, err := l.Load(memory.New(), "mtest/"); err != nil {
		t.Fatal(err)
	}
	if err := l.Save(&rec{ARN: "a"}); err != nil {
		t.Fatal(err)
	}
	notFound := func(arn string) error { return errors.New("no " + arn) }
	if r, err := l.Find("a", notFound); err != nil || r.ARN != "a" {
		t.Fatalf("Find(a) = %+v %v", r, err)
	}
	if _, err := l.Find("b", notFound); err == nil || err.Error() != "no b" {
		t.Fatalf("Find(b) = %v", err)
	}
}

// claim is a Claim that counts its releases and fails its fence once lost.
type claim struct {
	lost     bool
	released *int
}

func (c *claim) Fence(storage.Txn) error {
	if c.lost {
		return errors.New("lost")
	}
	return nil
}
func (c *claim) Release() { *c.released++ }

// TestRunsAcrossNodes: two nodes' logs over one store. A job claimed by
// one is not started by the other; a claimed job whose stored record no
// longer asks for a run is released unstarted; Reload sees the other
// node's saves but keeps this node's copy of a job it runs; and a lost
// claim fences the job's saves off.
func TestRunsAcrossNodes(t *testing.T) {
	s := memory.New()
	held := map[string]bool{}
	released := 0
	var claims []*claim
	claimer := func(arn string) (jobs.Claim, bool) {
		if held[arn] {
			return nil, false
		}
		c := &claim{released: &released}
		claims = append(claims, c)
		return c, true
	}
	live := func(r *rec) bool { return r.State == "running" }
	var a, b log
	var ra, rb jobs.Runs
	if _, err := a.LoadRuns(s, "mtest/", &ra, claimer, live); err != nil {
		t.Fatal(err)
	}
	if _, err := b.LoadRuns(s, "mtest/", &rb, claimer, live); err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1000, 0).UTC()
	if err := a.Save(&rec{ARN: "j", Start: t0, State: "running"}); err != nil {
		t.Fatal(err)
	}
	if !ra.Start("j") {
		t.Fatal("a could not start its job")
	}
	held["j"] = true
	recs, err := b.Reload()
	if err != nil || len(recs) != 1 {
		t.Fatalf("b's Reload: %v %v, want a's job", recs, err)
	}
	if rb.Start("j") {
		t.Fatal("b started a job a holds")
	}

	// a's claim is lost: its saves are refused, b's copy stays.
	claims[0].lost = true
	if err := a.Save(&rec{ARN: "j", Start: t0, State: "done-by-a"}); err == nil {
		t.Fatal("a saved a job it lost")
	}
	if r, _ := b.Get("j"); r.State != "running" {
		t.Fatalf("b's copy %q after a's fenced save", r.State)
	}

	// The job finished elsewhere meanwhile: a later claim releases it
	// without starting it.
	ra.Done("j")
	held["j"] = false
	if err := b.Save(&rec{ARN: "j", Start: t0, State: "finished"}); err != nil {
		t.Fatal(err)
	}
	before := released
	if ra.Start("j") || released != before+1 {
		t.Fatalf("a started a finished job (or kept its claim): released %d, want %d", released, before+1)
	}
	if _, err := a.Reload(); err != nil {
		t.Fatal(err)
	}
	if r, _ := a.Get("j"); r.State != "finished" {
		t.Fatalf("a's copy after Reload %q, want b's save", r.State)
	}
}

// TestSharedLogs: two nodes' logs of one store. A shared log answers
// Find, Page and WithToken from the store (what the other node saved a
// moment ago), and SaveWith hands its merge the record as the other node
// stored it, inside the transaction: a state another node saved is not
// overwritten unseen, and a refusal saves nothing. Seen failing with
// Share a no-op (Find answered not found) and with SaveWith ignoring
// merge.
func TestSharedLogs(t *testing.T) {
	s := memory.New()
	var a, b log
	for _, l := range []*log{&a, &b} {
		if _, err := l.Load(s, "mtest/"); err != nil {
			t.Fatal(err)
		}
		l.Share()
	}
	t0 := time.Unix(1000, 0).UTC()
	if err := a.Save(&rec{ARN: "j", Start: t0, Token: "tok", State: "RUNNING"}); err != nil {
		t.Fatal(err)
	}
	notFound := func(arn string) error { return errors.New("not found: " + arn) }
	if r, err := b.Find("j", notFound); err != nil || r.State != "RUNNING" {
		t.Fatalf("b's Find: %+v %v", r, err)
	}
	if r, ok := b.WithToken("tok", nil); !ok || r.ARN != "j" {
		t.Fatalf("b's WithToken: %+v %v", r, ok)
	}
	if err := b.Save(&rec{ARN: "j", Start: t0, Token: "tok", State: "CANCELLING"}); err != nil {
		t.Fatal(err)
	}
	next := &rec{ARN: "j", Start: t0, Token: "tok", State: "RUNNING"}
	if err := a.SaveWith(next, func(stored *rec) error {
		if stored.State == "CANCELLING" {
			next.State = stored.State
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if r, err := b.Find("j", notFound); err != nil || r.State != "CANCELLING" {
		t.Fatalf("after a's merged save b finds %+v %v", r, err)
	}
	refused := errors.New("refused")
	err := a.SaveWith(&rec{ARN: "j", Start: t0, State: "DONE"}, func(*rec) error { return refused })
	if !errors.Is(err, refused) {
		t.Fatalf("a refused save: %v", err)
	}
	if recs, _, err := b.Page(false, "", 10, func(*rec) bool { return true }); err != nil || len(recs) != 1 || recs[0].State != "CANCELLING" {
		t.Fatalf("b's Page after a refused save: %v %v", recs, err)
	}
}
