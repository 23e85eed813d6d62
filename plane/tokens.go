package plane

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/httpapi"
	"github.com/miniplane/miniplane/apiserver/serviceaccount"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// kubeletTokens issues the tokens the simulated kubelets write into
// pods' token volumes, as the kubelet's token manager asks TokenRequest
// for them (pkg/kubelet/token): bound to the pod, and kept until 80% of
// their life has passed, so that a volume refreshed at every sync keeps
// its token.
type kubeletTokens struct {
	srv    *apiserver.Server
	issuer *serviceaccount.Issuer
	clock  clock.Clock

	mu    sync.Mutex
	cache map[tokenKey]cachedToken
	// pruneAt is the cache's size at which expired tokens are dropped.
	pruneAt int
}

type tokenKey struct {
	pod      api.UID
	audience string
	seconds  int64
}

type cachedToken struct {
	token   string
	refresh time.Time // 80% of its life
	expiry  time.Time
}

func newKubeletTokens(srv *apiserver.Server, issuer *serviceaccount.Issuer, clk clock.Clock) *kubeletTokens {
	return &kubeletTokens{srv: srv, issuer: issuer, clock: clk, cache: map[tokenKey]cachedToken{}}
}

// token returns a token of pod's service account for audience (the API
// server's when empty), valid for expirationSeconds.
func (k *kubeletTokens) token(pod *api.Pod, audience string, expirationSeconds int64) (string, error) {
	if audience == "" {
		audience = httpapi.APIAudience
	}
	key := tokenKey{pod: pod.Metadata.UID, audience: audience, seconds: expirationSeconds}
	now := k.clock.Now()
	k.mu.Lock()
	defer k.mu.Unlock()
	if c, ok := k.cache[key]; ok && now.Before(c.refresh) {
		return c.token, nil
	}
	obj, err := k.srv.Get(context.Background(), client.ServiceAccounts, pod.Metadata.Namespace, pod.Spec.ServiceAccountName, client.GetOptions{})
	if err != nil {
		return "", err
	}
	sa, ok := obj.(*api.ServiceAccount)
	if !ok {
		return "", fmt.Errorf("service account %s/%s: got a %T", pod.Metadata.Namespace, pod.Spec.ServiceAccountName, obj)
	}
	var node *api.Node
	if obj, err := k.srv.Get(context.Background(), client.Nodes, "", pod.Spec.NodeName, client.GetOptions{}); err == nil {
		node, _ = obj.(*api.Node)
	}
	life := time.Duration(expirationSeconds) * time.Second
	tok, exp, err := k.issuer.Issue(serviceaccount.Request{
		Account: sa, Pod: pod, Node: node, Audiences: []string{audience}, Duration: life,
		ID: string(pod.Metadata.UID) + "-" + strconv.FormatInt(now.UnixNano(), 36),
	})
	if err != nil {
		return "", err
	}
	if len(k.cache) >= k.pruneAt {
		for key, c := range k.cache {
			if !now.Before(c.expiry) {
				delete(k.cache, key)
			}
		}
		k.pruneAt = 2*len(k.cache) + 64
	}
	k.cache[key] = cachedToken{token: tok, refresh: now.Add(life * 8 / 10), expiry: exp}
	return tok, nil
}
