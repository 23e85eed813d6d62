package serviceaccount

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver/rbac"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// DefaultIssuer is the iss of the tokens, and the audience a token gets
// when its request names none: kube-apiserver's usual
// --service-account-issuer (and so --api-audiences).
const DefaultIssuer = "https://kubernetes.default.svc.cluster.local"

// leeway is how far past exp, or before nbf, a token is still taken, as
// kube-apiserver's validator allows for clock skew (jwt.DefaultLeeway).
const leeway = time.Minute

// Config configures an Issuer. Key, Clock and Client are required.
type Config struct {
	// Key signs the tokens (P-256, hence ES256).
	Key *ecdsa.PrivateKey
	// Clock gives iat, nbf and exp, and judges expiry.
	Clock clock.Clock
	// Client reads the service accounts and pods tokens name, to refuse a
	// token whose account or pod is gone or was recreated.
	Client client.Client
	// Issuer is the tokens' iss; "" is DefaultIssuer.
	Issuer string
}

// Issuer signs and checks service-account tokens. Create it with New.
type Issuer struct {
	key    *ecdsa.PrivateKey
	kid    string
	clock  clock.Clock
	client client.Client
	issuer string
}

// New returns an Issuer. It starts nothing.
func New(cfg Config) (*Issuer, error) {
	if cfg.Key == nil || cfg.Clock == nil || cfg.Client == nil {
		return nil, errors.New("serviceaccount: Config needs a Key, a Clock and a Client")
	}
	if cfg.Key.Curve != elliptic.P256() {
		return nil, errors.New("serviceaccount: the key must be on P-256")
	}
	der, err := x509.MarshalPKIXPublicKey(&cfg.Key.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("serviceaccount: %w", err)
	}
	sum := sha256.Sum256(der)
	i := &Issuer{key: cfg.Key, kid: base64.RawURLEncoding.EncodeToString(sum[:]), clock: cfg.Clock, client: cfg.Client, issuer: cfg.Issuer}
	if i.issuer == "" {
		i.issuer = DefaultIssuer
	}
	return i, nil
}

// KeyFromSeed derives a P-256 key from a seeded source: reproducible and
// not secret, for tests and a plane started without a key of its own.
func KeyFromSeed(r *rand.Rand) *ecdsa.PrivateKey {
	for {
		d := make([]byte, 32)
		for i := range d {
			d[i] = byte(r.Uint32())
		}
		if k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), d); err == nil {
			return k
		}
	}
}

// Issuer is the tokens' iss.
func (i *Issuer) Issuer() string { return i.issuer }

// Request is what a token is for: a service account, the audiences it may
// be shown to, how long it lasts, and optionally the pod it is bound to.
type Request struct {
	Account *api.ServiceAccount
	Pod     *api.Pod
	// Node is the node of Pod, when it is bound to one: kube-apiserver
	// names it in the token too (ServiceAccountTokenPodNodeInfo).
	Node      *api.Node
	Audiences []string
	Duration  time.Duration
	// ID is the token's jti, unique per token.
	ID string
}

// claims are a token's JWT claims, in the JSON kube-apiserver writes.
// Kubernetes: serviceaccount.claims and privateClaims.
type claims struct {
	Audience  []string   `json:"aud"`
	Expiry    int64      `json:"exp"`
	IssuedAt  int64      `json:"iat"`
	Issuer    string     `json:"iss"`
	ID        string     `json:"jti,omitempty"`
	Kube      kubeClaims `json:"kubernetes.io"`
	NotBefore int64      `json:"nbf"`
	Subject   string     `json:"sub"`
}

type kubeClaims struct {
	Namespace      string `json:"namespace"`
	Pod            *ref   `json:"pod,omitempty"`
	Node           *ref   `json:"node,omitempty"`
	ServiceAccount ref    `json:"serviceaccount"`
}

type ref struct {
	Name string `json:"name"`
	UID  string `json:"uid"`
}

// Issue signs a token for req, valid from now for req.Duration, and
// returns it with its expiry.
func (i *Issuer) Issue(req Request) (string, time.Time, error) {
	now := i.clock.Now().Truncate(time.Second)
	exp := now.Add(req.Duration)
	sa := req.Account
	c := claims{
		Audience: req.Audiences, Expiry: exp.Unix(), IssuedAt: now.Unix(), NotBefore: now.Unix(), Issuer: i.issuer, ID: req.ID,
		Subject: rbac.ServiceAccountUserName(sa.Metadata.Namespace, sa.Metadata.Name),
		Kube: kubeClaims{Namespace: sa.Metadata.Namespace,
			ServiceAccount: ref{Name: sa.Metadata.Name, UID: string(sa.Metadata.UID)}},
	}
	if req.Pod != nil {
		c.Kube.Pod = &ref{Name: req.Pod.Metadata.Name, UID: string(req.Pod.Metadata.UID)}
		if req.Node != nil {
			c.Kube.Node = &ref{Name: req.Node.Metadata.Name, UID: string(req.Node.Metadata.UID)}
		}
	}
	header, err := json.Marshal(map[string]string{"alg": "ES256", "kid": i.kid})
	if err != nil {
		return "", time.Time{}, err
	}
	payload, err := json.Marshal(c)
	if err != nil {
		return "", time.Time{}, err
	}
	signed := b64(header) + "." + b64(payload)
	sum := sha256.Sum256([]byte(signed))
	r, s, err := ecdsa.Sign(nil, i.key, sum[:]) // Go's ECDSA draws its own nonce
	if err != nil {
		return "", time.Time{}, err
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return signed + "." + b64(sig), exp, nil
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// AuthenticateToken returns the service account a token of this issuer
// is, with its audiences: the signature must verify, the time be within
// nbf and exp (a minute's leeway), and the account (and a bound pod) still
// exist with the uid the token names. Kubernetes: jwtTokenAuthenticator
// and validator.Validate.
func (i *Issuer) AuthenticateToken(ctx context.Context, token string) (rbac.User, []string, bool) {
	c, ok := i.verify(token)
	if !ok {
		return rbac.User{}, nil, false
	}
	now := i.clock.Now()
	if now.After(time.Unix(c.Expiry, 0).Add(leeway)) || now.Add(leeway).Before(time.Unix(c.NotBefore, 0)) {
		return rbac.User{}, nil, false
	}
	ns, name := c.Kube.Namespace, c.Kube.ServiceAccount.Name
	if c.Subject != rbac.ServiceAccountUserName(ns, name) {
		return rbac.User{}, nil, false
	}
	sa, err := client.For[*api.ServiceAccount](i.client).Get(ctx, ns, name)
	if err != nil || string(sa.Metadata.UID) != c.Kube.ServiceAccount.UID || sa.Metadata.DeletionTimestamp != nil {
		return rbac.User{}, nil, false
	}
	if c.Kube.Pod != nil {
		pod, err := client.For[*api.Pod](i.client).Get(ctx, ns, c.Kube.Pod.Name)
		if err != nil || string(pod.Metadata.UID) != c.Kube.Pod.UID || pod.Metadata.DeletionTimestamp != nil {
			return rbac.User{}, nil, false
		}
	}
	u := rbac.ServiceAccountUser(ns, name, string(sa.Metadata.UID))
	u.Extra = extraOf(c)
	return u, c.Audience, true
}

// The user extras a token's claims give (Kubernetes: serviceaccount's
// NewUserInfo and the credential-id the JWT authenticator adds).
const (
	ExtraCredentialID = "authentication.kubernetes.io/credential-id"
	ExtraPodName      = "authentication.kubernetes.io/pod-name"
	ExtraPodUID       = "authentication.kubernetes.io/pod-uid"
	ExtraNodeName     = "authentication.kubernetes.io/node-name"
	ExtraNodeUID      = "authentication.kubernetes.io/node-uid"
)

// extraOf is the user's extras from a token's claims: its jti as
// "JTI=...", and the pod and node it is bound to.
func extraOf(c claims) map[string][]string {
	extra := map[string][]string{}
	if c.ID != "" {
		extra[ExtraCredentialID] = []string{"JTI=" + c.ID}
	}
	if p := c.Kube.Pod; p != nil {
		extra[ExtraPodName], extra[ExtraPodUID] = []string{p.Name}, []string{p.UID}
	}
	if n := c.Kube.Node; n != nil {
		extra[ExtraNodeName], extra[ExtraNodeUID] = []string{n.Name}, []string{n.UID}
	}
	if len(extra) == 0 {
		return nil
	}
	return extra
}

// verify checks a token's form, algorithm, issuer and signature, and
// returns its claims.
func (i *Issuer) verify(token string) (claims, bool) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return claims{}, false
	}
	var header struct {
		Alg string `json:"alg"`
	}
	var c claims
	h, err1 := base64.RawURLEncoding.DecodeString(parts[0])
	p, err2 := base64.RawURLEncoding.DecodeString(parts[1])
	sig, err3 := base64.RawURLEncoding.DecodeString(parts[2])
	if err := errors.Join(err1, err2, err3); err != nil || len(sig) != 64 {
		return claims{}, false
	}
	if json.Unmarshal(h, &header) != nil || header.Alg != "ES256" || json.Unmarshal(p, &c) != nil || c.Issuer != i.issuer {
		return claims{}, false
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
	if !ecdsa.Verify(&i.key.PublicKey, sum[:], r, s) {
		return claims{}, false
	}
	return c, true
}

// Audiences intersects a token's audiences with those wanted, in the
// wanted order.
func Audiences(token, wanted []string) []string {
	var both []string
	for _, a := range wanted {
		if slices.Contains(token, a) {
			both = append(both, a)
		}
	}
	return both
}
