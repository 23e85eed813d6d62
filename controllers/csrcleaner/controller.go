package csrcleaner

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/loop"
	"github.com/miniplane/miniplane/informer"
)

// The cleaner's periods. Kubernetes: cleaner.go's constants.
const (
	pollingInterval    = time.Hour
	approvedExpiration = time.Hour
	deniedExpiration   = time.Hour
	pendingExpiration  = 24 * time.Hour
)

// Client is what the controller writes through. client.Client and
// *apiserver.Server satisfy it.
type Client interface {
	Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (api.Object, error)
}

// Config configures a Controller. Client, Factory and Clock are required.
type Config struct {
	Client  Client
	Factory *informer.Factory
	// Clock times the sweeps and tells the requests' ages.
	Clock clock.Clock
	// Logger is named "csrcleaner" by New; nil means no logs.
	Logger *zap.Logger
	// Observer, if set, is told of every sync (loop.Observer).
	Observer loop.Observer
}

// Controller is the CSR cleaner. See the package documentation.
type Controller struct {
	client Client
	clock  clock.Clock
	log    *zap.Logger
	csrs   informer.Lister[*api.CertificateSigningRequest]

	*loop.Controller // Queue, HasSynced, ProcessOne and Run: a manager.Controller
}

// New returns the controller, its first sweep queued. It starts nothing.
func New(cfg Config) (*Controller, error) {
	if err := loop.CheckRequired("csrcleaner", cfg.Client, cfg.Factory, cfg.Clock); err != nil {
		return nil, err
	}
	log := loop.Logger(cfg.Logger)
	c := &Controller{client: cfg.Client, clock: cfg.Clock, log: log.Named("csrcleaner")}
	inf := cfg.Factory.ForResource(client.CertificateSigningRequests)
	c.csrs = informer.NewLister[*api.CertificateSigningRequest](inf,
		apierrors.GroupResource{Group: "certificates.k8s.io", Resource: client.CertificateSigningRequests})
	var err error
	c.Controller, err = loop.NewPeriodic(loop.PeriodicConfig{
		Name: "csrcleaner", Informers: []*informer.Informer{inf}, Clock: cfg.Clock, Period: pollingInterval,
		Sweep: c.sweep, Logger: log, Observer: cfg.Observer,
	})
	if err != nil {
		return nil, fmt.Errorf("csrcleaner: %w", err)
	}
	return c, nil
}

// sweep deletes every request past its deadline. Kubernetes: worker.
func (c *Controller) sweep(ctx context.Context) error {
	csrs := c.csrs.List(api.Selector{})
	slices.SortFunc(csrs, func(a, b *api.CertificateSigningRequest) int {
		return strings.Compare(a.Metadata.Name, b.Metadata.Name)
	})
	now := c.clock.Now()
	var errs []error
	for _, csr := range csrs {
		why := expired(csr, now)
		if why == "" {
			continue
		}
		c.log.Info("cleaning CSR", zap.String("csr", csr.Metadata.Name), zap.String("reason", why))
		_, err := c.client.Delete(ctx, client.CertificateSigningRequests, "", csr.Metadata.Name, api.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("unable to delete CSR %q: %w", csr.Metadata.Name, err))
		}
	}
	return errors.Join(errs...)
}

// expired says why csr is to be deleted at now, "" when it is not.
// Kubernetes: handle's isIssuedPastDeadline, isDeniedPastDeadline,
// isFailedPastDeadline, isPendingPastDeadline and isIssuedExpired, in that
// order.
func expired(csr *api.CertificateSigningRequest, now time.Time) string {
	issued := len(csr.Status.Certificate) > 0
	olderThan := func(t api.Time, d time.Duration) bool { return !t.IsZero() && t.Sub(now) < -d }
	for _, c := range csr.Status.Conditions {
		if c.Type == api.CertificateApproved && issued && olderThan(c.LastUpdateTime, approvedExpiration) {
			return "approved and issued more than an hour ago"
		}
	}
	for _, c := range csr.Status.Conditions {
		if c.Type == api.CertificateDenied && olderThan(c.LastUpdateTime, deniedExpiration) {
			return "denied more than an hour ago"
		}
	}
	for _, c := range csr.Status.Conditions {
		if c.Type == api.CertificateFailed && olderThan(c.LastUpdateTime, deniedExpiration) {
			return "failed more than an hour ago"
		}
	}
	if len(csr.Status.Conditions) == 0 && olderThan(csr.Metadata.CreationTimestamp, pendingExpiration) {
		return "pending for more than a day"
	}
	for _, c := range csr.Status.Conditions {
		if c.Type == api.CertificateApproved && issued && certificateExpired(csr.Status.Certificate, now) {
			return "its certificate has expired"
		}
	}
	return ""
}

// certificateExpired reports whether the first certificate of a PEM chain
// is past its notAfter; false when it cannot be read. Kubernetes: isExpired.
func certificateExpired(pemData []byte, now time.Time) bool {
	block, _ := pem.Decode(pemData)
	if block == nil {
		return false
	}
	certs, err := x509.ParseCertificates(block.Bytes)
	if err != nil || len(certs) == 0 {
		return false
	}
	return now.After(certs[0].NotAfter)
}
