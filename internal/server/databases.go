package server

import (
	"container/list"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/kura-db/kura/internal/api"
	"github.com/kura-db/kura/internal/auth"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine"
	"github.com/kura-db/kura/internal/membership"
	"github.com/kura-db/kura/internal/storage"
)

// DefaultMaxOpenDatabases is Config.MaxOpenDatabases' default.
const DefaultMaxOpenDatabases = 64

// filesPerDatabase is the open files one idle per-credential database is
// reckoned to hold (Pebble's WAL, its spare, MANIFEST, LOCK, OPTIONS, the
// directory, a few table files) when the open-file limit bounds how many
// stay open; reservedFiles are kept for connections and everything else.
const (
	filesPerDatabase = 16
	reservedFiles    = 64
)

// database is one store and the engine over it.
type database struct {
	name   string // folder (or TiKV store) name: sharedKey or folderName's
	region string // the region it serves (its ARNs')
	store  storage.Store
	eng    *engine.Engine
	member *membership.Member // this node's registration (Config.Cluster), else nil
	refs   int                // requests using it now (guarded by databases.mu)
	recent *list.Element      // its place in databases.lru
}

// databases are the open databases of a server: the shared one, or one per
// access key and region, opened on first use. On disk at most max of those
// stay open (0: no bound): the least recently used one no request is using
// is closed to make room, and opened again when a request needs it.
type databases struct {
	mu   sync.Mutex
	open map[string]*database
	lru  list.List // of *database, most recently used first
	// busy holds the names being opened or closed: a request for one waits
	// for the channel to close and looks again.
	busy map[string]chan struct{}
	max  int
	// clocks keep each database's --admin clock while it is closed, so an
	// advanced clock stays advanced.
	clocks map[string]*engine.AdminClock
}

func (d *databases) init() {
	d.open = map[string]*database{}
	d.busy = map[string]chan struct{}{}
	d.clocks = map[string]*engine.AdminClock{}
}

// sharedKey names the one database of shared mode, and the database of
// unsigned requests in per-credential mode.
const sharedKey = "shared"

// limitOpenDatabases sets how many per-credential databases on disk may
// stay open: Config.MaxOpenDatabases, lowered to what the open-file limit
// leaves room for. In memory, in TiKV or in PostgreSQL they hold no files
// and all stay open (an in-memory database closed would be lost).
func (s *Server) limitOpenDatabases() {
	if s.cfg.InMemory || s.tikv != nil || s.pg != nil {
		return
	}
	n := s.cfg.MaxOpenDatabases
	if n <= 0 {
		n = DefaultMaxOpenDatabases
	}
	if limit := s.fileLimit; limit > 0 {
		room := max(1, (int(min(limit, 1<<20))-reservedFiles)/filesPerDatabase)
		if room < n {
			s.log.Info("fewer databases kept open, for the open-file limit", "max-open-databases", room, "open-file-limit", limit)
			n = room
		}
	}
	s.dbs.max = n
}

// databaseFor picks the database of the request's credential (the
// api.Options.Databases hook).
func (s *Server) databaseFor(authorization string) (api.Backend, func(), error) {
	name, region := credentialKey(authorization, s.cfg.Region)
	if !s.servesRegion(region) {
		return nil, nil, unknownRegion(region)
	}
	if !s.cfg.PerCredential {
		name = s.regionKey(region) // --regions in shared mode
	}
	if s.repl != nil && s.repl.Unavailable(region) {
		return nil, nil, regionOutage()
	}
	db, err := s.acquire(name, region)
	if err != nil {
		s.log.Error("cannot open the database of a credential", "database", name, "err", err)
		return nil, nil, ddberr.Internal(openFailedMessage(err))
	}
	if s.repl != nil {
		return s.repl.Region(region), func() { s.release(db) }, nil
	}
	if akid := credentialAKID(authorization); akid != "" && s.perKeyGlobalTables() {
		// A key's own global tables (keyrepl.go).
		if g, _ := s.keyGroup(akid, false); g != nil {
			return g.Region(region), func() { s.release(db) }, nil
		}
		return keyBackend{Engine: db.eng, s: s, akid: akid, region: region}, func() { s.release(db) }, nil
	}
	return db.eng, func() { s.release(db) }, nil
}

// openFailedMessage is the InternalServerError text of a request whose
// database cannot be opened: the cause in a sentence, the details in the
// server's log.
func openFailedMessage(err error) string {
	if outOfFiles(err) {
		return "Kura cannot open this access key's database: too many open files (raise the open-file limit, ulimit -n, or lower --max-open-databases); the server log has the details"
	}
	return "Kura cannot open this access key's database; the server log has the details"
}

// acquire returns the database name, opening it if needed (its tables'
// ARNs name region); the caller releases it when done.
func (s *Server) acquire(name, region string) (*database, error) {
	return s.acquireOpening(name, region, true)
}

// acquireOpening is acquire; makeRoom false opens a closed database
// without first closing an idle one for the bound (one opened for a moment,
// which releaseAndClose closes again), unless files run out.
func (s *Server) acquireOpening(name, region string, makeRoom bool) (*database, error) {
	d := &s.dbs
	for {
		d.mu.Lock()
		if db := d.open[name]; db != nil {
			db.refs++
			d.lru.MoveToFront(db.recent)
			d.mu.Unlock()
			return db, nil
		}
		if wait := d.busy[name]; wait != nil {
			d.mu.Unlock()
			<-wait
			continue
		}
		done := make(chan struct{})
		d.busy[name] = done
		var victims []*database
		if makeRoom {
			victims = d.evictable(d.max - 1)
		}
		d.mu.Unlock()
		s.closeAll(victims)

		db, err := s.openDatabase(name, region)
		for err != nil && outOfFiles(err) {
			// Other databases hold the files: close the least
			// recently used idle one and try again.
			d.mu.Lock()
			victims := d.evictable(d.lru.Len() - 1) // at most one
			d.mu.Unlock()
			if len(victims) == 0 {
				break
			}
			s.log.Warn("out of open files: closing an idle database to open another", "database", name, "closing", victims[0].name)
			s.closeAll(victims)
			db, err = s.openDatabase(name, region)
		}
		d.mu.Lock()
		delete(d.busy, name)
		close(done)
		if err == nil {
			db.refs = 1
			d.keep(db)
		}
		d.mu.Unlock()
		return db, err
	}
}

// release ends a request's use of db; when more databases are open than
// the bound allows, idle ones are closed.
func (s *Server) release(db *database) {
	d := &s.dbs
	d.mu.Lock()
	db.refs--
	victims := d.evictable(d.max)
	d.mu.Unlock()
	s.closeAll(victims)
}

// keep records db as open and most recently used. d.mu is held.
func (d *databases) keep(db *database) {
	d.open[db.name] = db
	db.recent = d.lru.PushFront(db)
}

// evictable takes out of the open set the least recently used idle
// databases beyond the first keep (none when there is no bound), marking
// them busy until closeAll has closed them. d.mu is held.
func (d *databases) evictable(keep int) []*database {
	if d.max <= 0 || d.lru.Len() <= keep {
		return nil
	}
	var out []*database
	for e := d.lru.Back(); e != nil && d.lru.Len() > max(keep, 0); {
		db := e.Value.(*database)
		e = e.Prev()
		if db.refs > 0 {
			continue
		}
		d.takeOut(db)
		out = append(out, db)
	}
	return out
}

// takeOut removes the idle db from the open set, marking it busy until
// closeAll has closed it. d.mu is held.
func (d *databases) takeOut(db *database) {
	d.lru.Remove(db.recent)
	delete(d.open, db.name)
	d.busy[db.name] = make(chan struct{})
}

// releaseAndClose ends the use of a database opened only for a moment (a
// checkpoint's copy of a closed one) and closes it again unless a request
// holds it now: so that it does not push the databases requests use out
// of the bound, nor stay open under a name no request uses (an older
// Kura's folder) or a region guessed from a hashed name.
func (s *Server) releaseAndClose(db *database) {
	d := &s.dbs
	d.mu.Lock()
	db.refs--
	var victims []*database
	if db.refs == 0 && d.open[db.name] == db {
		d.takeOut(db)
		victims = append(victims, db)
	}
	d.mu.Unlock()
	s.closeAll(victims)
}

// isOpen reports whether the database name is open now.
func (s *Server) isOpen(name string) bool {
	s.dbs.mu.Lock()
	defer s.dbs.mu.Unlock()
	return s.dbs.open[name] != nil
}

// closeAll closes databases evictable took out, then lets waiting
// requests open them again.
func (s *Server) closeAll(victims []*database) {
	for _, db := range victims {
		if err := db.close(); err != nil {
			s.log.Error("closing an idle database", "database", db.name, "err", err)
		} else {
			s.log.Debug("closed an idle database", "database", db.name)
		}
		s.dbs.mu.Lock()
		close(s.dbs.busy[db.name])
		delete(s.dbs.busy, db.name)
		s.dbs.mu.Unlock()
	}
}

func (db *database) close() error {
	var errs []error
	if db.member != nil {
		if err := db.member.Leave(); err != nil {
			errs = append(errs, fmt.Errorf("leaving the cluster of %s: %w", db.name, err))
		}
	}
	if err := db.eng.Close(); err != nil {
		errs = append(errs, fmt.Errorf("closing engine %s: %w", db.name, err))
	}
	if err := db.store.Close(); err != nil {
		errs = append(errs, fmt.Errorf("closing store %s: %w", db.name, err))
	}
	return errors.Join(errs...)
}

// outOfFiles reports whether err is the process (or system) running out
// of file descriptors.
func outOfFiles(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) || strings.Contains(err.Error(), "too many open files")
}

// openDatabase opens the store and engine of the database name.
func (s *Server) openDatabase(name, region string) (*database, error) {
	cfg := s.cfg
	if cfg.PerCredential {
		cfg.DataDir = filepath.Join(cfg.DataDir, name)
		if region != "" {
			cfg.Region = region
		}
		if !cfg.InMemory && s.tikv == nil && s.pg == nil {
			if err := s.adoptLegacyFolder(name, cfg.DataDir); err != nil {
				return nil, err
			}
		}
	} else if name != sharedKey {
		// Another region of a shared server (regions.go).
		cfg.DataDir, cfg.Region = regionDir(cfg.DataDir, region), region
	}
	store, err := s.openStore(cfg, name)
	if err != nil {
		return nil, err
	}
	ec := engineConfig(cfg, s.objects, s.kinesis)
	if cfg.Admin {
		ec.Clock = s.adminClock(name)
	}
	eng, err := engine.Open(store, ec)
	if err != nil {
		store.Close()
		return nil, fmt.Errorf("opening engine: %w", err)
	}
	if cfg.VectorMaxTopK > 0 {
		eng.SetVectorMaxTopK(cfg.VectorMaxTopK)
	}
	eng.SetVectorEfSearch(cfg.VectorEfSearch)
	if err := eng.SetVectorQuantization(cfg.VectorQuantization); err != nil {
		eng.Close()
		store.Close()
		return nil, err
	}
	if !cfg.InMemory && cfg.VectorSnapshotInterval > 0 {
		eng.SetVectorSnapshotPolicy(cfg.VectorSnapshotInterval, cfg.VectorSnapshotChanges)
	}
	if cfg.PerCredential || name != sharedKey {
		s.log.Info("opened database", "database", name, "region", cfg.Region)
	}
	db := &database{name: name, region: cfg.Region, store: store, eng: eng}
	if cfg.Cluster {
		if db.member, err = membership.Join(store, s.Addr().String(), nil); err != nil {
			eng.Close()
			store.Close()
			return nil, err
		}
		s.log.Info("joined the cluster", "database", name, "node", db.member.ID())
		eng.NodesChanged() // its share of the throughput now counts it

	}
	return db, nil
}

// adminClock is the --admin clock of the database name, kept across its
// closing and reopening.
func (s *Server) adminClock(name string) *engine.AdminClock {
	s.dbs.mu.Lock()
	defer s.dbs.mu.Unlock()
	c := s.dbs.clocks[name]
	if c == nil {
		c = &engine.AdminClock{}
		s.dbs.clocks[name] = c
	}
	return c
}

// holdOpenDatabases returns the open databases, each held as acquire
// holds it (the caller releases each), without opening any.
func (s *Server) holdOpenDatabases() []*database {
	s.dbs.mu.Lock()
	defer s.dbs.mu.Unlock()
	out := make([]*database, 0, len(s.dbs.open))
	for _, db := range s.dbs.open {
		db.refs++
		out = append(out, db)
	}
	return out
}

// closeDatabases closes every database, the TiKV connection and the data
// directory's lock.
func (s *Server) closeDatabases() error {
	d := &s.dbs
	var errs []error
	for {
		d.mu.Lock()
		var wait chan struct{}
		for _, ch := range d.busy {
			wait = ch
			break
		}
		d.mu.Unlock()
		if wait == nil {
			break
		}
		<-wait
	}
	d.mu.Lock()
	for name, db := range d.open {
		if err := db.close(); err != nil {
			errs = append(errs, err)
		}
		delete(d.open, name)
	}
	d.lru.Init()
	d.mu.Unlock()
	if s.tikv != nil {
		if err := s.tikv.Close(); err != nil {
			errs = append(errs, fmt.Errorf("closing the TiKV connection: %w", err))
		}
		s.tikv = nil
	}
	if s.pg != nil {
		if err := s.pg.Close(); err != nil {
			errs = append(errs, fmt.Errorf("closing the PostgreSQL connection: %w", err))
		}
		s.pg = nil
	}
	if s.dirLock != nil {
		if err := s.dirLock.release(); err != nil {
			errs = append(errs, err)
		}
		s.dirLock = nil
	}
	return errors.Join(errs...)
}

// credentialKey is the database name of a SigV4 Authorization header
// ("AWS4-HMAC-SHA256 Credential=AKID/20261130/us-east-1/dynamodb/
// aws4_request, ...": folderName of the access key ID and region) and that
// region; sharedKey and defaultRegion for anything else.
func credentialKey(authorization, defaultRegion string) (name, region string) {
	parts := auth.CredentialScope(authorization)
	if len(parts) < 3 || parts[0] == "" {
		return sharedKey, defaultRegion
	}
	return folderName(parts[0], parts[2]), parts[2]
}

// credentialAKID is the access key ID of a SigV4 Authorization header
// ("" for anything else).
func credentialAKID(authorization string) string {
	if parts := auth.CredentialScope(authorization); len(parts) >= 3 {
		return parts[0]
	}
	return ""
}

// adoptLegacyFolder renames the folder an older Kura gave the database
// name (legacyFolderName) to its name, when only the old one exists.
func (s *Server) adoptLegacyFolder(name, dir string) error {
	akid, region, ok := parseFolderName(name)
	if !ok {
		return nil
	}
	legacy := legacyFolderName(akid, region)
	if legacy == name {
		return nil
	}
	old := filepath.Join(filepath.Dir(dir), legacy)
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) || !isStore(old) {
		return nil
	}
	if err := os.Rename(old, dir); err != nil {
		return fmt.Errorf("renaming the database folder %s to %s: %w", old, dir, err)
	}
	s.log.Info("renamed a database folder to its new name", "from", legacy, "to", name)
	return nil
}
