package server

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/kura-db/kura/internal/api"
	"github.com/kura-db/kura/internal/iam"
)

// iamPoll is how often the IAM file is checked for changes.
const iamPoll = 2 * time.Second

// startIAM switches authorization on when Config.IAMFile is set: the
// policies are loaded (a file that does not load stops the start), then
// reloaded on SIGHUP and whenever the file changes until Shutdown.
func (s *Server) startIAM(opts *api.Options) error {
	cfg := s.cfg
	if cfg.IAMFile == "" {
		return nil
	}
	if opts.Auth == nil {
		return errors.New("--iam-file needs authentication on (--credentials or --credentials-file)")
	}
	account := cfg.AccountID
	if account == "" {
		account = "000000000000" // the engine's default
	}
	a, err := iam.New(cfg.IAMFile, account, cfg.Principals, s.log)
	if err != nil {
		return err
	}
	region := cfg.Region
	if region == "" {
		region = "us-east-1"
	}
	if cfg.PerCredential || len(cfg.Regions) > 0 {
		region = "" // each request's credential-scope region
	}
	opts.Authorize = &api.Authorizer{IAM: a, Region: region, Account: account, Secure: cfg.TLSCert != ""}
	ctx, cancel := context.WithCancel(context.Background())
	s.stopIAM = cancel
	go a.Watch(ctx, iamPoll)
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		defer signal.Stop(hup)
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				_ = a.Reload()
			}
		}
	}()
	s.log.Info("authorization on", "iam-file", cfg.IAMFile, "principals", len(cfg.Principals))
	return nil
}
