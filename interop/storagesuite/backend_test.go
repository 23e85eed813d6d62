package storagesuite

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"k8s.io/apimachinery/pkg/api/apitesting"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apiserver/pkg/apis/example"
	examplev1 "k8s.io/apiserver/pkg/apis/example/v1"
	"k8s.io/apiserver/pkg/storage"
	storagetesting "k8s.io/apiserver/pkg/storage/testing"
	"k8s.io/apiserver/pkg/storage/value"

	"github.com/miniplane/miniplane/etcdstore"
	"github.com/miniplane/miniplane/store"
)

// The suite's scheme and codec, as etcd3's store_test.go makes them.
var (
	scheme = runtime.NewScheme()
	codecs = serializer.NewCodecFactory(scheme)
)

// transformerPrefix is what the suite's PrefixTransformer puts before every
// stored value (etcd3's defaultTestPrefix).
const transformerPrefix = "test!"

func init() {
	metav1.AddToGroupVersion(scheme, metav1.SchemeGroupVersion)
	utilruntime.Must(example.AddToScheme(scheme))
	utilruntime.Must(examplev1.AddToScheme(scheme))
}

// etcdURL is the client URL of the etcd member TestMain starts for the
// etcd backend: one for the package, each test under its own key prefix.
var etcdURL string

func TestMain(m *testing.M) {
	os.Exit(runWithEtcd(m))
}

func runWithEtcd(m *testing.M) int {
	dir, err := os.MkdirTemp("", "storagesuite-etcd")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	e, url, err := startEtcd(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer e.Close()
	etcdURL = url
	return m.Run()
}

// startEtcd starts an etcd member with its data in dir, on free loopback
// ports, and returns it and its client URL.
func startEtcd(dir string) (*embed.Etcd, string, error) {
	cfg := embed.NewConfig()
	cfg.Dir = dir
	cfg.Logger = "zap"
	cfg.LogLevel = "error"
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	client, peer := freeURL(), freeURL()
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.InitialCluster = cfg.Name + "=" + peer.String()
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, "", err
	}
	<-e.Server.ReadyNotify()
	return e, client.String(), nil
}

// freeURL returns an http URL on a loopback port free a moment ago.
func freeURL() url.URL {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	return url.URL{Scheme: "http", Host: ln.Addr().String()}
}

// env is one test's storage and the suite's hooks into what is below it.
type env struct {
	s *Storage
	b Backend
	// increaseRV writes a key outside the storage's prefix: the revision
	// moves on with nothing the storage holds changing.
	increaseRV storagetesting.IncreaseRVFunc
	// prefix is the suite's transformer, when it is the default one.
	prefix *storagetesting.PrefixTransformer
}

// calls is the half of etcd3's checkStorageCallsInvariants that is not
// about etcd: a list transforms (decodes) exactly the objects it had to
// look at. The other half counts etcd range requests, which etcd3 makes
// page by page with growing limits and miniplane's store does not make.
func (e *env) calls(t *testing.T, pageSize, estimatedProcessedObjects uint64) {
	if reads := e.prefix.GetReadsAndReset(); reads != estimatedProcessedObjects {
		t.Errorf("unexpected reads: %d, expected: %d", reads, estimatedProcessedObjects)
	}
}

// compact compacts the backend's history at the revision rv as
// kube-apiserver's compactor does (etcd3.Compact): it first writes its
// compact_rev_key beside the resources, which moves the revision on by one,
// and the suite's expected revisions count that write.
func (e *env) compact(ctx context.Context, t *testing.T, rv string) {
	rev, err := storage.APIObjectVersioner{}.ParseResourceVersion(rv)
	require.NoError(t, err)
	e.increaseRV(ctx, t)
	require.NoError(t, e.b.Compact(int64(rev)))
}

// validate checks what the suite's KeyValidation checks in etcd: the
// stored value decodes, without a resourceVersion or selfLink.
func (e *env) validate(ctx context.Context, t *testing.T, key string) {
	r, err := e.b.Get(key, 0)
	require.NoError(t, err, "reading %q", key)
	require.True(t, strings.HasPrefix(string(r.Value), transformerPrefix), "stored value is transformed")
	obj, err := runtime.Decode(e.s.codec, r.Value[len(transformerPrefix):])
	require.NoError(t, err)
	pod := obj.(*example.Pod)
	require.Empty(t, pod.ResourceVersion, "stored object has no resourceVersion")
	require.Empty(t, pod.SelfLink, "stored object has no selfLink")
}

// backend is how a test gets a fresh Backend. fresh asks for one whose
// revisions start at 1, for tests that watch from the beginning of time as
// etcd3's, which start an etcd for each test, do.
type backend struct {
	name string
	open func(t *testing.T, fresh bool) (Backend, storagetesting.IncreaseRVFunc)
}

var backends = []backend{
	{"memory", openMemory},
	{"etcd", openEtcd},
}

// openMemory is an empty in-memory store.
func openMemory(t *testing.T, _ bool) (Backend, storagetesting.IncreaseRVFunc) {
	b := store.New[[]byte](store.Options{})
	var n atomic.Int64
	return b, func(ctx context.Context, t *testing.T) int64 {
		r, err := b.Create(fmt.Sprintf("/increaseRV/%d", n.Add(1)), []byte("ok"))
		require.NoError(t, err)
		return r.ModRev
	}
}

// bytesCodec stores the storage's bytes in etcd as they are.
type bytesCodec struct{}

func (bytesCodec) Encode(_ string, v []byte) ([]byte, error)    { return v, nil }
func (bytesCodec) Decode(_ string, data []byte) ([]byte, error) { return data, nil }

// etcdPrefixes numbers the tests' etcd prefixes.
var etcdPrefixes atomic.Int64

// openEtcd is an etcdstore over the package's etcd, under a prefix of its
// own.
func openEtcd(t *testing.T, fresh bool) (Backend, storagetesting.IncreaseRVFunc) {
	url := etcdURL
	if fresh {
		e, u, err := startEtcd(t.TempDir())
		require.NoError(t, err)
		t.Cleanup(e.Close)
		url = u
	}
	cli, err := etcdstore.Dial([]string{url})
	require.NoError(t, err)
	prefix := fmt.Sprintf("/t%d", etcdPrefixes.Add(1))
	s, err := etcdstore.Open(context.Background(), etcdstore.Config[[]byte]{
		Client: cli,
		Prefix: prefix + "/",
		Codec:  bytesCodec{},
		ToEtcd: func(k string) string { return prefix + k },
		FromEtcd: func(k string) (string, bool) {
			if !strings.HasPrefix(k, prefix+"/") {
				return "", false
			}
			return strings.TrimPrefix(k, prefix), true
		},
	})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = s.Close()
		_ = cli.Close()
	})
	var n atomic.Int64
	return s, func(ctx context.Context, t *testing.T) int64 {
		// Written beside the prefix, through another store, as etcd3's
		// test writes a key beside its own.
		other, err := etcdstore.Open(ctx, etcdstore.Config[[]byte]{Client: cli, Prefix: prefix + "-increaseRV/", Codec: bytesCodec{}})
		require.NoError(t, err)
		defer other.Close()
		r, err := other.Create(fmt.Sprintf("%s-increaseRV/%d", prefix, n.Add(1)), []byte("ok"))
		require.NoError(t, err)
		return r.ModRev
	}
}

// setup makes a test's env on b with the suite's codec and transformer.
func setup(t *testing.T, b backend, codec runtime.Codec, tr value.Transformer) (context.Context, *env) {
	return setupOn(t, b, false, codec, tr)
}

// setupOn is setup on a fresh backend when fresh is set.
func setupOn(t *testing.T, b backend, fresh bool, codec runtime.Codec, tr value.Transformer) (context.Context, *env) {
	if codec == nil {
		codec = apitesting.TestCodec(codecs, examplev1.SchemeGroupVersion)
	}
	var prefix *storagetesting.PrefixTransformer
	if tr == nil {
		prefix = storagetesting.NewPrefixTransformer([]byte(transformerPrefix), false)
		tr = prefix
	}
	be, inc := b.open(t, fresh)
	s, err := New(Config{
		Backend:        be,
		Codec:          codec,
		Transformer:    tr,
		NewFunc:        func() runtime.Object { return &example.Pod{} },
		ResourcePrefix: "/pods/",
		// etcd3's watcher tests set etcd's to a second.
		ProgressNotifyInterval: 200 * time.Millisecond,
	})
	require.NoError(t, err)
	return context.Background(), &env{s: s, b: be, increaseRV: inc, prefix: prefix}
}

// withPrefixTransformer is the suite's InterfaceWithPrefixTransformer.
type withPrefixTransformer struct{ *Storage }

func (w withPrefixTransformer) UpdatePrefixTransformer(modify storagetesting.PrefixTransformerModifier) func() {
	orig := w.Transformer().(*storagetesting.PrefixTransformer)
	cp := *orig
	w.SetTransformer(modify(&cp))
	return func() { w.SetTransformer(orig) }
}

// withTransformerOverride is the suite's InterfaceWithTransformerOverride.
type withTransformerOverride struct{ *Storage }

func (w withTransformerOverride) UpdateTransformer(modify storagetesting.TransformerModifier) func() {
	orig := w.Transformer()
	w.SetTransformer(modify(orig))
	return func() { w.SetTransformer(orig) }
}
