package apiserver

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver/celrules"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/store"
)

// DefaultBookmarkInterval is how often a watch that allows bookmarks gets one
// when it has progressed, as kube-apiserver's watch cache does (about once a
// minute).
const DefaultBookmarkInterval = time.Minute

// Config configures a Server. Clock and Rand are required.
type Config struct {
	// Clock gives creation and deletion timestamps and bookmark timing.
	Clock clock.Clock
	// Rand draws uids and generated-name suffixes; seed it for a
	// reproducible run. The server guards it: do not share it.
	Rand *rand.Rand
	// Names, if set, draws generated-name suffixes instead of Rand, from
	// one stream per prefix (SeededNames): for a live control plane whose
	// goroutines interleave their writes differently on every run.
	Names *SeededNames
	// Logger receives structured logs; nil means none.
	Logger *zap.Logger
	// HistoryLimit is the store's history window (store.Options).
	HistoryLimit int
	// BookmarkInterval overrides DefaultBookmarkInterval.
	BookmarkInterval time.Duration
	// SystemNamespaces makes New create "kube-public" and
	// NodeLeaseNamespace after "default" and "kube-system", as
	// kube-apiserver does. Off, the server starts with the first two only,
	// so that runs recorded before (golden traces, seeded names) keep their
	// revisions and uids: each namespace takes a revision and draws a uid.
	SystemNamespaces bool
	// DefaultStorageClass makes New create the StorageClass "standard",
	// annotated as the default and provisioned by DefaultProvisioner, as a
	// cluster's installer does; off, there is none (the simulator's runs
	// keep their revisions).
	DefaultStorageClass bool
	// ServiceAccounts turns on kube-apiserver's ServiceAccount admission
	// for pod creates (admitServiceAccount): the account defaults to
	// "default" and must exist. kube-apiserver always runs it; here it is a
	// choice because an account exists only once a service account
	// controller made it, and a bare Server (most of this module's tests)
	// runs no controller. The live plane and `serve` turn it on.
	ServiceAccounts bool
	// ResourceQuotas turns on kube-apiserver's ResourceQuota admission for
	// creates (admitQuota): a create that would take a quota's used past
	// its hard is refused, and an admitted one is charged to the quota at
	// once. kube-apiserver always runs it; here it is a choice because a
	// quota is counted only once the resourcequota controller ran, which a
	// bare Server does not run. The live plane and `serve` turn it on.
	ResourceQuotas bool
	// PriorityClasses turns on kube-apiserver's Priority admission for pod
	// creates (admitPriority): spec.priority and spec.preemptionPolicy are
	// resolved from the pod's PriorityClass, or the global default, and a
	// missing class is refused. New then creates the two system classes
	// (system-node-critical, system-cluster-critical), as kube-apiserver's
	// post-start hook does. kube-apiserver always does both; here it is a
	// choice so that runs recorded before (golden traces, seeded uids) keep
	// their revisions, and pods their shape. The live plane and `serve`
	// turn it on.
	PriorityClasses bool
	// ServiceNodePortRange is where services' node ports come from, as
	// kube-apiserver's --service-node-port-range; the zero range is its
	// default, 30000-32767.
	ServiceNodePortRange PortRange
	// DefaultServiceAccountWait is how long, with ServiceAccounts, a pod
	// create waits for its namespace's "default" account to appear, as
	// kube-apiserver retries that lookup (ten times, 100-200ms apart); 0:
	// no wait. A wait blocks the caller, so the simulator, which steps
	// everything from one goroutine, must not set it.
	DefaultServiceAccountWait time.Duration
	// BootstrapPolicy makes New create kube-apiserver's default cluster
	// roles and bindings (rbac.BootstrapClusterRoles), as its
	// rbac/bootstrap-roles hook does at start. Off, a bare Server starts
	// without them, so that recorded runs keep their revisions and uids;
	// the live plane and `serve` turn it on.
	BootstrapPolicy bool
	// FlowControl makes New create the mandatory FlowSchemas and
	// PriorityLevelConfigurations (exempt and catch-all), as
	// kube-apiserver's priority-and-fairness configuration does at start,
	// and Sweep put back any that is deleted. miniplane does not do
	// priority and fairness: they are there because clients and
	// Kubernetes' tests expect them. Off, a bare Server starts without
	// them, so that recorded runs keep their revisions and uids; the live
	// plane and `serve` turn it on.
	FlowControl bool
	// LocalAPIServices makes the server keep a local APIService for each
	// group version it serves, custom ones included, as kube-apiserver's
	// aggregator does (syncLocalAPIServices). Off, as BootstrapPolicy, so
	// that recorded runs keep their revisions; the live plane turns it on.
	LocalAPIServices bool
	// CheckMutations turns on the mutation check of stored objects
	// (Server.CheckMutations, mutation.go): for tests and the simulator,
	// where it costs an encoding per write and per object handed out; the
	// live binary leaves it off.
	CheckMutations bool
	// Etcd, when set, keeps the objects in etcd instead of memory (etcd.go,
	// DESIGN.md "The etcd backend"): etcd is the source of truth and the
	// store serves reads and watches as etcd's watch cache. Close the
	// Server to stop following etcd; the client stays the caller's.
	Etcd *etcdClient
	// CompactEvery is, with Etcd, how often etcd is compacted; 0 means
	// DefaultCompactEvery.
	CompactEvery time.Duration
}

// initialNamespaces names the namespaces New creates, in order.
func initialNamespaces(system bool) []string {
	if system {
		return []string{"default", "kube-system", "kube-public", api.NamespaceNodeLease}
	}
	return []string{"default", "kube-system"}
}

// Server serves the resources of miniplane over a store. Create it with New.
type Server struct {
	clock clock.Clock
	log   *zap.Logger
	store store.Backend[api.Object]
	// closeStore stops the store's background work (etcd's); nil for memory.
	closeStore func() error
	// byTypeMeta finds a built-in kind by apiVersion and kind, for decoding
	// what etcd holds.
	byTypeMeta map[api.TypeMeta]*kind
	kinds      map[string]*kind // the stored kinds, by GroupResource.String()
	served     []*kind          // every kind served, stored or not, in newKinds' order
	byName     map[string]*kind // every kind served, by each name a Client call may use
	// localAPIServices: Config.LocalAPIServices; set once in New.
	localAPIServices bool
	byType           map[reflect.Type]*kind // every kind served, by the Go type of its objects
	bookmarkEvery    time.Duration

	// customMu serializes changes to custom, the served custom kinds
	// (crd.go): a snapshot read without a lock and replaced whole. epoch
	// counts the replacements.
	customMu sync.Mutex
	custom   atomic.Pointer[customKinds]
	epoch    atomic.Uint64
	// rules compiles the definitions' CEL validation rules, for their
	// validation and for the kinds they serve.
	rules *celrules.Compiler
	// policies keeps the ValidatingAdmissionPolicies compiled for
	// admission (admission_policy.go).
	policies policyCache

	// randMu guards rand.
	randMu sync.Mutex
	// lastStamp is the time stampTime last gave out.
	lastStamp atomic.Pointer[api.Time]
	// stamps shares the managedFields of a second's writes.
	stamps stamps
	// shared shares other pieces of a second's writes (shared.go).
	shared sharedPieces
	rand   *rand.Rand
	names  *SeededNames // nil: names come from rand

	// mut is the mutation check (Config.CheckMutations); nil when off.
	mut *mutationCheck

	ips       ipAllocator   // service cluster IPs
	nodePorts portAllocator // service node ports
	// repairs check ips and nodePorts against the Services when they are
	// kept in etcd (rangerepair.go); nil in memory.
	repairs []*rangeRepair
	// kubeSvc is the kubernetes Service the server keeps, once published.
	kubeSvc kubernetesService
	// serviceAccounts and defaultAccountWait are Config's.
	serviceAccounts bool
	// resourceQuotas is Config's; quotaMu serializes the quota admission of
	// creates from check to charge (admitQuota), so that two creates are
	// never both checked against the same used.
	resourceQuotas     bool
	priorityClasses    bool // Config's
	flowControl        bool // Config's
	quotaMu            sync.Mutex
	defaultAccountWait time.Duration
	// openNS caches which namespaces are open for creates; every namespace
	// write must reach openNS.changed (stampWrite, deleteKey).
	openNS openNamespaces

	// graceMu guards grace, graceMin, graceMinOK, armed and sweepWake.
	// grace holds the store keys of objects marked for deletion (pods in
	// their grace period, terminating namespaces) and when Sweep should
	// next look at each. When graceMinOK, graceMin is the earliest time in
	// grace, so that finding it does not scan thousands of pods in their
	// grace period. armed is the time the last nextSweepLocked returned
	// (zero: none), the one Run waits for.
	graceMu    sync.Mutex
	grace      map[string]time.Time
	graceMin   time.Time
	graceMinOK bool
	armed      time.Time
	sweepWake  chan struct{} // closed when grace gains a deadline earlier than armed
}

// New returns a server holding the namespaces "default" and "kube-system",
// as a fresh cluster does, and with Config.SystemNamespaces "kube-public"
// and "kube-node-lease" too.
func New(cfg Config) (*Server, error) {
	if cfg.Clock == nil || cfg.Rand == nil {
		return nil, errors.New("apiserver: Config needs a Clock and a Rand")
	}
	s := &Server{
		clock:         cfg.Clock,
		log:           cfg.Logger,
		rand:          cfg.Rand,
		names:         cfg.Names,
		kinds:         make(map[string]*kind),
		byName:        make(map[string]*kind),
		byType:        make(map[reflect.Type]*kind),
		bookmarkEvery: cfg.BookmarkInterval,
		grace:         make(map[string]time.Time),
		sweepWake:     make(chan struct{}),

		serviceAccounts:    cfg.ServiceAccounts,
		resourceQuotas:     cfg.ResourceQuotas,
		priorityClasses:    cfg.PriorityClasses,
		flowControl:        cfg.FlowControl,
		defaultAccountWait: cfg.DefaultServiceAccountWait,
	}
	if s.log == nil {
		s.log = zap.NewNop()
	}
	ports := serviceNodePortRange
	if r := cfg.ServiceNodePortRange; r.Size > 0 {
		ports = portRange{base: int32(r.Base), size: int32(r.Size)}
	}
	s.ips, s.nodePorts = newIPAllocator(), newPortAllocator(ports)
	if s.bookmarkEvery <= 0 {
		s.bookmarkEvery = DefaultBookmarkInterval
	}
	if cfg.CheckMutations {
		s.mut = newMutationCheck(s.log.Named("mutation-check"))
	}
	s.rules = &celrules.Compiler{}
	for _, k := range newKinds(s.rules) {
		s.register(k)
	}
	if cfg.Etcd == nil {
		s.store = store.NewStamped(store.Options{HistoryLimit: cfg.HistoryLimit}, s.stampWrite)
	} else {
		es, err := s.openEtcd(cfg)
		if err != nil {
			return nil, fmt.Errorf("apiserver: %w", err)
		}
		s.store, s.closeStore = es, es.Close
		if err := s.reloadCRDs(); err != nil {
			_ = es.Close()
			return nil, err
		}
		s.shareRanges(cfg.Etcd)
		if err := s.repairRanges(); err != nil {
			_ = es.Close()
			return nil, err
		}
		if err := s.restoreGrace(); err != nil {
			_ = es.Close()
			return nil, err
		}
	}
	for _, name := range initialNamespaces(cfg.SystemNamespaces) {
		ns := &api.Namespace{Metadata: api.ObjectMeta{Name: name}}
		if err := s.ensure(ns); err != nil {
			s.Close()
			return nil, fmt.Errorf("apiserver: creating namespace %s: %w", name, err)
		}
	}
	if err := s.createDefaults(cfg); err != nil {
		s.Close()
		return nil, err
	}
	if cfg.LocalAPIServices {
		s.localAPIServices = true
		s.syncLocalAPIServices()
	}
	return s, nil
}

// createDefaults makes the objects cfg asks the server to make at start:
// the default storage class, the system priority classes, the mandatory
// flow-control objects, the bootstrap RBAC policy.
func (s *Server) createDefaults(cfg Config) error {
	if cfg.DefaultStorageClass {
		if err := s.ensure(newDefaultStorageClass()); err != nil {
			return fmt.Errorf("apiserver: creating the default storage class: %w", err)
		}
	}
	if cfg.PriorityClasses {
		if err := s.createSystemPriorityClasses(); err != nil {
			return err
		}
	}
	if cfg.FlowControl {
		if err := s.ensureMandatoryFlowControl(); err != nil {
			return err
		}
	}
	if cfg.BootstrapPolicy {
		return s.createBootstrapPolicy()
	}
	return nil
}

// mandatoryFlowControlKey reports whether key is a mandatory flow schema's
// or priority level's and the server keeps them (Config.FlowControl).
func (s *Server) mandatoryFlowControlKey(key string) bool {
	if !s.flowControl {
		return false
	}
	for _, name := range []string{"exempt", "catch-all"} {
		if key == s.kinds["flowschemas.flowcontrol.apiserver.k8s.io"].key("", name) ||
			key == s.kinds["prioritylevelconfigurations.flowcontrol.apiserver.k8s.io"].key("", name) {
			return true
		}
	}
	return false
}

// ensureMandatoryFlowControl creates the mandatory priority levels and flow
// schemas that do not exist. Kubernetes: the mandatory configuration
// ensurer of k8s.io/apiserver's flowcontrol bootstrap.
func (s *Server) ensureMandatoryFlowControl() error {
	for _, pl := range mandatoryPriorityLevels() {
		if err := s.ensure(pl); err != nil {
			return fmt.Errorf("apiserver: creating priority level %s: %w", pl.Metadata.Name, err)
		}
	}
	for _, fs := range mandatoryFlowSchemas() {
		if err := s.ensure(fs); err != nil {
			return fmt.Errorf("apiserver: creating flow schema %s: %w", fs.Metadata.Name, err)
		}
	}
	return nil
}

// ensure creates obj, one of the objects the server makes at start, unless
// it is stored already: a server over etcd restarts over what an earlier
// one made, as kube-apiserver's post-start hooks find their objects.
func (s *Server) ensure(obj api.Object) error {
	if _, err := s.create(obj, writeOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}

// Close stops the server's store from following etcd (Config.Etcd); it
// does nothing for a store in memory.
func (s *Server) Close() error {
	if s.closeStore == nil {
		return nil
	}
	return s.closeStore()
}

// reloadCRDs serves the custom kinds of the definitions a restarted server
// finds in etcd, as it does for those it writes (crdWritten).
func (s *Server) reloadCRDs() error {
	k := s.kinds[crdResource]
	res, err := s.store.List(k.prefix(""), store.ListOptions{})
	if err != nil {
		return fmt.Errorf("apiserver: reading CustomResourceDefinitions: %w", err)
	}
	for _, r := range res.Records {
		if crd, ok := r.Value.(*api.CustomResourceDefinition); ok && crd.Metadata.DeletionTimestamp == nil {
			s.registerCRD(crd)
		}
	}
	return nil
}

// register serves k. A Client call names it by "resource.group" (its
// GroupResource), or by its plural alone unless a kind registered earlier
// took that plural: newKinds lists the core group's kinds before the kinds
// that serve them elsewhere, so "events" is core/v1 Events, as kubectl
// reads it, and "events.events.k8s.io" the events.k8s.io ones.
func (s *Server) register(k *kind) {
	k.keyPrefix = "/registry/" + k.stored().gr.String() + "/"
	s.served = append(s.served, k)
	s.byName[k.info().Name()] = k
	if _, taken := s.byName[k.gr.Resource]; !taken {
		s.byName[k.gr.Resource] = k
	}
	s.byType[reflect.TypeOf(k.newObj())] = k
	if k.storage == nil {
		s.kinds[k.gr.String()] = k
	}
}

// stampWrite writes the store revision of a create or update into the object
// being stored, which the server still owns at that moment, and tells openNS
// of a namespace's write. The store calls it under its lock.
func (s *Server) stampWrite(obj api.Object, rev int64) {
	obj.GetObjectMeta().ResourceVersion = strconv.FormatInt(rev, 10)
	if _, ok := obj.(*api.Namespace); ok {
		s.openNS.changed()
	}
	if s.mut != nil {
		s.mut.stored(obj, rev)
	}
}

// deleteKey removes key from the store if it is still at rev; every
// delete of the server goes through it, so that openNS learns of a
// namespace's removal. (A namespace is Terminating, an update, before it is
// removed, so openNS already forgot it; this keeps openNS right should a
// path ever remove one directly.)
func (s *Server) deleteKey(key string, rev int64) (store.Record[api.Object], error) {
	rec, err := s.store.Delete(key, rev)
	if _, ok := rec.Value.(*api.Namespace); ok && err == nil {
		s.openNS.changed()
	}
	if s.mut != nil && err == nil {
		s.mut.deleted(rec.Value, s.store.Rev())
	}
	return rec, err
}

// StoreReader is the read side of the store under a Server: its revision,
// statistics, reads at any revision still in history and watches from one.
// Writes go through the Server only, which validates them and owns the
// server-set metadata; the store itself is not exported.
type StoreReader interface {
	Rev() int64
	Stats() store.Stats
	Get(key string, rev int64) (store.Record[api.Object], error)
	List(prefix string, opts store.ListOptions) (store.ListResult[api.Object], error)
	Range(prefix string, opts store.ListOptions, fn func(store.Record[api.Object]) bool) (rev int64, more bool, err error)
	Watch(prefix string, fromRev int64) (*store.Watcher[api.Object], error)
}

// Store returns the read side of the store under the server: the browser
// view's history, the simulator's and tests' checks that compare caches
// with it, and metrics read it.
func (s *Server) Store() StoreReader { return s.store }

// Compact drops the store's history before rev: later reads and watches
// from older resource versions get 410 Gone. kube-apiserver compacts etcd
// every five minutes.
func (s *Server) Compact(rev int64) error { return s.store.Compact(rev) }

// kindFor returns the kind a resource name names (see register).
func (s *Server) kindFor(resource string) (*kind, error) {
	k, ok := s.byName[resource]
	if !ok {
		k = s.customLookup(resource)
	}
	if k == nil {
		return nil, apierrors.NewWithReason(api.StatusReasonNotFound,
			fmt.Sprintf("the server could not find the requested resource (%s)", resource), nil)
	}
	return k, nil
}

// kindOf returns the kind of an object by its Go type, and checks that any
// apiVersion and kind it names agree.
func (s *Server) kindOf(obj api.Object) (*kind, error) {
	if obj == nil || reflect.ValueOf(obj).IsNil() {
		return nil, apierrors.NewBadRequest("no object given")
	}
	k, ok := s.byType[reflect.TypeOf(obj)]
	if u, isCustom := obj.(*api.Unstructured); isCustom {
		if c := s.custom.Load(); c != nil {
			k, ok = c.byType[u.TypeMeta]
		}
		if !ok {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("no matches for kind %q in version %q", u.Kind, u.APIVersion))
		}
	}
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the server does not serve objects of type %T", obj))
	}
	tm := obj.GetTypeMeta()
	if (tm.Kind != "" && tm.Kind != k.kind) || (tm.APIVersion != "" && tm.APIVersion != k.apiVersion) {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the object's apiVersion %q and kind %q do not match the resource %s (%s, %s)",
			tm.APIVersion, tm.Kind, k.gr, k.apiVersion, k.kind))
	}
	return k, nil
}

// key returns the store key of an object: /registry/<resource>/<ns>/<name>,
// or /registry/<resource>/<name> when cluster-scoped, where resource is the
// stored kind's (a kind served in another version shares its keys).
func (k *kind) key(namespace, name string) string {
	if !k.namespaced {
		return k.keyPrefix + name
	}
	return k.keyPrefix + namespace + "/" + name
}

// prefix returns the store prefix of a namespace's objects of this kind, or
// of all of them when namespace is "" (or the kind is cluster-scoped).
func (k *kind) prefix(namespace string) string {
	if !k.namespaced || namespace == "" {
		return k.keyPrefix
	}
	return k.keyPrefix + namespace + "/"
}

// newUID returns a random (version 4) UUID drawn from the server's source.
func (s *Server) newUID() api.UID {
	s.randMu.Lock()
	hi, lo := s.rand.Uint64(), s.rand.Uint64()
	s.randMu.Unlock()
	hi = hi&^(0xf<<12) | 0x4<<12 // version 4
	lo = lo&^(0x3<<62) | 0x2<<62 // RFC 4122 variant
	var raw [16]byte
	binary.BigEndian.PutUint64(raw[:8], hi)
	binary.BigEndian.PutUint64(raw[8:], lo)
	var b [36]byte
	hex.Encode(b[0:8], raw[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], raw[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], raw[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], raw[8:10])
	b[23] = '-'
	hex.Encode(b[24:36], raw[10:16])
	return api.UID(b[:])
}

// nameSuffixAlphabet is Kubernetes' alphabet for generated names: no vowels
// (no words by accident) and no easily confused characters.
const nameSuffixAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// Generated names are a prefix of at most maxGeneratedPrefix bytes and a
// random suffix of generatedSuffixLen characters, so they fit in 63.
const (
	generatedSuffixLen = 5
	maxGeneratedPrefix = 63 - generatedSuffixLen
)

// generateKey returns a name generated from base (a generateName):
// base, truncated, with a random suffix; and the store key of k's object of
// that name in namespace (k.key(namespace, name)). Both are one string,
// made in one allocation: the name is the key's tail. Sharing is safe, as
// strings are immutable, and costs no memory, as the store keeps the key for
// as long as any version of the object lives.
func (s *Server) generateKey(k *kind, namespace, base string) (key, name string) {
	if len(base) > maxGeneratedPrefix {
		base = base[:maxGeneratedPrefix]
	}
	if !k.namespaced {
		namespace = ""
	}
	var b strings.Builder // its String makes no copy: one allocation in all
	b.Grow(len(k.keyPrefix) + len(namespace) + 1 + len(base) + generatedSuffixLen)
	b.WriteString(k.keyPrefix)
	if k.namespaced {
		b.WriteString(namespace)
		b.WriteByte('/')
	}
	b.WriteString(base)
	// The stream is the key's: one per resource, namespace and prefix, so
	// that an EndpointSlice named from its Service ("web-") draws nothing
	// from the stream of the pods named from their RC ("web-").
	b.WriteString(s.randomSuffix(b.String()))
	key = b.String()
	return key, key[len(key)-len(base)-generatedSuffixLen:]
}

// randomSuffix is a generated name's suffix: from Config.Names' stream for
// stream when it is set, else from Config.Rand. Kubernetes:
// names.SimpleNameGenerator.
func (s *Server) randomSuffix(stream string) string {
	if s.names != nil {
		return s.names.Suffix(stream, nameSuffixAlphabet, generatedSuffixLen)
	}
	var b [generatedSuffixLen]byte
	s.randMu.Lock()
	for i := range b {
		b[i] = nameSuffixAlphabet[s.rand.IntN(len(nameSuffixAlphabet))]
	}
	s.randMu.Unlock()
	return string(b[:])
}

// now is the server's time at Kubernetes' precision for timestamps.
func (s *Server) now() api.Time { return api.NewTime(s.clock.Now()) }

var _ client.Client = (*Server)(nil)
