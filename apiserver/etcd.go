package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/protobuf"
	"github.com/miniplane/miniplane/etcdstore"
	"github.com/miniplane/miniplane/store"
)

// DefaultCompactEvery is how often a server over etcd compacts it, as
// kube-apiserver's --etcd-compaction-interval defaults to.
const DefaultCompactEvery = 5 * time.Minute

// etcdRoot is the prefix of every key kube-apiserver writes to etcd.
const etcdRoot = "/registry/"

// specialEtcdPrefixes are the resources kube-apiserver keeps under a name of
// their own (SpecialDefaultResourcePrefixes in kube-apiserver's storage
// factory), by the stored kind's GroupResource.
var specialEtcdPrefixes = map[string]string{
	"replicationcontrollers":      "controllers",
	"endpoints":                   "services/endpoints",
	"nodes":                       "minions",
	"services":                    "services/specs",
	"ingresses.networking.k8s.io": "ingress",
}

// groupKeyedGroups are the built-in groups whose keys name the group, as
// custom resources' do: /registry/<group>/<resource>/.
var groupKeyedGroups = map[string]bool{"apiextensions.k8s.io": true, "apiregistration.k8s.io": true}

// etcdKeys maps the server's store keys, /registry/<resource[.group]>/...,
// to the keys kube-apiserver writes to etcd and back (DESIGN.md, "The etcd
// backend"): built-in resources under /registry/<resource>/ (or their
// special prefix), custom resources under /registry/<group>/<resource>/.
type etcdKeys struct {
	// builtin maps an etcd prefix's first segment naming a built-in
	// resource ("pods", "minions", "services/specs") to its store segment
	// ("pods", "nodes", "services").
	builtin map[string]string
	// toEtcd is the other way: store segment to etcd segment, for
	// built-in stored kinds.
	toEtcd map[string]string
}

// newEtcdKeys knows the stored kinds the server serves now.
func newEtcdKeys(kinds map[string]*kind) *etcdKeys {
	ek := &etcdKeys{builtin: make(map[string]string), toEtcd: make(map[string]string)}
	for seg, k := range kinds {
		if groupKeyedGroups[k.gr.Group] {
			continue
		}
		e, ok := specialEtcdPrefixes[seg]
		if !ok {
			e = k.gr.Resource
		}
		ek.toEtcd[seg], ek.builtin[e] = e, seg
	}
	return ek
}

// split cuts a key after root into its segment and the rest.
func split(key, root string) (seg, rest string, ok bool) {
	tail, ok := strings.CutPrefix(key, root)
	if !ok {
		return "", "", false
	}
	seg, rest, ok = strings.Cut(tail, "/")
	return seg, rest, ok
}

// ToEtcd maps a store key to its etcd key.
func (ek *etcdKeys) ToEtcd(key string) string {
	seg, rest, ok := split(key, etcdRoot)
	if !ok {
		return key
	}
	if e, builtin := ek.toEtcd[seg]; builtin {
		return etcdRoot + e + "/" + rest
	}
	resource, group, _ := strings.Cut(seg, ".")
	return etcdRoot + group + "/" + resource + "/" + rest
}

// FromEtcd maps an etcd key back to its store key.
func (ek *etcdKeys) FromEtcd(key string) (string, bool) {
	seg, rest, ok := split(key, etcdRoot)
	if !ok {
		return "", false
	}
	// Two-segment special prefixes first: services/specs, services/endpoints.
	if sub, rest2, ok := strings.Cut(rest, "/"); ok {
		if s, builtin := ek.builtin[seg+"/"+sub]; builtin {
			return etcdRoot + s + "/" + rest2, true
		}
	}
	if s, builtin := ek.builtin[seg]; builtin {
		return etcdRoot + s + "/" + rest, true
	}
	if !strings.Contains(seg, ".") {
		return "", false // a resource this server does not serve
	}
	resource, rest, ok := strings.Cut(rest, "/")
	if !ok {
		return "", false
	}
	return etcdRoot + resource + "." + seg + "/" + rest, true
}

// etcdCodec stores built-in kinds as kube-apiserver does, in protobuf with
// the "k8s\x00" envelope, and custom resources in JSON, without
// resourceVersion: an object's resourceVersion is its key's ModRevision.
type etcdCodec struct{ s *Server }

var protobufMagic = []byte("k8s\x00")

func (c etcdCodec) Encode(_ string, obj api.Object) ([]byte, error) {
	meta := obj.GetObjectMeta()
	rv := meta.ResourceVersion
	meta.ResourceVersion = ""
	defer func() { meta.ResourceVersion = rv }()
	if u, custom := obj.(*api.Unstructured); custom {
		return json.Marshal(u)
	}
	tm := obj.GetTypeMeta()
	return protobuf.MarshalObject(tm.APIVersion, tm.Kind, obj)
}

func (c etcdCodec) Decode(_ string, data []byte) (api.Object, error) {
	if !bytes.HasPrefix(data, protobufMagic) {
		u := &api.Unstructured{}
		if err := json.Unmarshal(data, u); err != nil {
			return nil, err
		}
		return u, nil
	}
	env, err := protobuf.UnmarshalEnvelope(data)
	if err != nil {
		return nil, err
	}
	tm := api.TypeMeta{APIVersion: env.APIVersion, Kind: env.Kind}
	k := c.s.byTypeMeta[tm]
	if k == nil {
		return nil, fmt.Errorf("no served kind %s, %s", env.APIVersion, env.Kind)
	}
	obj := k.newObj()
	if err := protobuf.Unmarshal(env.Raw, obj); err != nil {
		return nil, err
	}
	*obj.GetTypeMeta() = tm
	return obj, nil
}

// openEtcd opens the server's store over etcd.
func (s *Server) openEtcd(cfg Config) (*etcdstore.Store[api.Object], error) {
	s.byTypeMeta = make(map[api.TypeMeta]*kind)
	for _, k := range s.served {
		s.byTypeMeta[api.TypeMeta{APIVersion: k.apiVersion, Kind: k.kind}] = k
	}
	keys := newEtcdKeys(s.kinds)
	ctx, cancel := context.WithTimeout(context.Background(), etcdstore.RequestTimeout)
	defer cancel()
	return etcdstore.Open(ctx, etcdstore.Config[api.Object]{
		Client: cfg.Etcd, Prefix: etcdRoot, Codec: etcdCodec{s},
		ToEtcd: keys.ToEtcd, FromEtcd: keys.FromEtcd,
		Cache: store.Options{HistoryLimit: cfg.HistoryLimit}, Stamp: s.stampWrite,
		Clock: cfg.Clock, CompactEvery: cmpOr(cfg.CompactEvery, DefaultCompactEvery),
		Logger: s.log.Named("etcd"),
	})
}

func cmpOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// etcdClient is Config.Etcd's type.
type etcdClient = etcdstore.Client
