package apiserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/store"
)

// Get returns the stored object. A resourceVersion asks for a state no
// older than it: the store's latest always is, unless the store has not
// reached it yet (Timeout, ResourceVersionTooLarge).
func (s *Server) Get(_ context.Context, resource, namespace, name string, opts client.GetOptions) (api.Object, error) {
	k, err := s.kindFor(resource)
	if err != nil {
		return nil, err
	}
	if !k.namespaced {
		namespace = ""
	}
	if opts.ResourceVersion != "" && opts.ResourceVersion != "0" {
		rv, err := parseRV(opts.ResourceVersion)
		if err != nil {
			return nil, err
		}
		if cur := s.store.Rev(); rv > cur {
			return nil, apierrors.NewTooLargeResourceVersion(rv, cur)
		}
	}
	rec, err := s.store.Get(k.key(namespace, name), 0)
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierrors.NewNotFound(k.gr, name)
	}
	if err != nil {
		// etcd did not answer: not a claim that the object is gone.
		return nil, apierrors.NewInternalError(err)
	}
	if s.mut != nil {
		s.mut.read(rec.Value)
	}
	return k.out(rec.Value), nil
}

// List returns the objects of a resource in a namespace ("" for all) that
// match the selectors, in key order, with Kubernetes' resourceVersion and
// paging rules (see ListOptions). With a Limit, a page holds at most Limit
// items and, when more remain, a Continue token that reads the rest at the
// same revision; a token whose revision was compacted gets 410 Expired.
func (s *Server) List(_ context.Context, resource, namespace string, opts client.ListOptions) (*client.List, error) {
	k, err := s.kindFor(resource)
	if err != nil {
		return nil, err
	}
	f, err := newFilter(k, opts.LabelSelector, opts.FieldSelector)
	if err != nil {
		return nil, err
	}
	prefix := k.prefix(namespace)
	rev, after, limit, err := s.listStart(prefix, opts)
	if err != nil {
		return nil, err
	}
	out := &client.List{}
	for {
		chunk := 0
		if limit > 0 {
			chunk = int(limit) - len(out.Items)
		}
		var last string
		read, more, err := s.store.Range(prefix, store.ListOptions{Rev: rev, Limit: chunk, After: after}, func(r store.Record[api.Object]) bool {
			last = r.Key
			if f.matches(r.Value) {
				out.Items = append(out.Items, k.out(r.Value))
			}
			return true
		})
		if err != nil {
			return nil, s.readError(err, rev, opts.Continue != "", prefix, after)
		}
		rev = read // every later chunk reads the first one's revision
		if !more {
			break
		}
		after = last
		if len(out.Items) == int(limit) {
			out.Metadata.Continue = encodeContinue(rev, strings.TrimPrefix(after, prefix))
			out.Metadata.RemainingItemCount = s.remaining(prefix, rev, after, f)
			break
		}
	}
	out.Metadata.ResourceVersion = strconv.FormatInt(rev, 10)
	return out, nil
}

// remaining is a page's remainingItemCount: how many objects the list
// holds after key after, at rev. As kube-apiserver, it is given only when
// the list selects nothing (a count of what a selector would match would
// mean reading them all), else nil. Kubernetes: the etcd3 store's GetList.
func (s *Server) remaining(prefix string, rev int64, after string, f filter) *int64 {
	if !f.labels.Empty() || !f.fields.Empty() {
		return nil
	}
	var n int64
	if _, _, err := s.store.Range(prefix, store.ListOptions{Rev: rev, After: after}, func(store.Record[api.Object]) bool {
		n++
		return true
	}); err != nil {
		return nil
	}
	return &n
}

// listStart resolves a list's resourceVersion, match and continue options
// into the store revision to read (0 for the latest), the key to start
// after, and the page limit in effect.
func (s *Server) listStart(prefix string, opts client.ListOptions) (rev int64, after string, limit int64, err error) {
	limit = max(opts.Limit, 0)
	rv, match := opts.ResourceVersion, opts.ResourceVersionMatch
	if errs := validateListOptions(opts); len(errs) > 0 {
		return 0, "", 0, apierrors.NewInvalid("meta.k8s.io", "ListOptions", "", errs)
	}
	if opts.Continue != "" {
		if rv != "" && rv != "0" {
			return 0, "", 0, apierrors.NewBadRequest("specifying resource version is not allowed when using continue")
		}
		rev, start, err := decodeContinue(opts.Continue)
		if err != nil {
			return 0, "", 0, err
		}
		return rev, prefix + start, limit, nil
	}
	switch rv {
	case "":
		return 0, "", limit, nil // the latest, consistent
	case "0":
		return 0, "", 0, nil // any: the latest; like the watch cache, no paging
	}
	n, err := parseRV(rv)
	if err != nil {
		return 0, "", 0, err
	}
	if match == client.MatchExact || (match == "" && limit > 0) {
		return n, "", limit, nil // exactly N (the legacy rule when paging)
	}
	if cur := s.store.Rev(); n > cur {
		return 0, "", 0, apierrors.NewTooLargeResourceVersion(n, cur)
	}
	return 0, "", limit, nil // not older than N: the latest is
}

// validateListOptions applies Kubernetes' rules for resourceVersionMatch on
// a list (apimachinery's ValidateListOptions).
func validateListOptions(opts client.ListOptions) apierrors.FieldErrors {
	p := NewPath("resourceVersionMatch")
	switch match := opts.ResourceVersionMatch; {
	case match == "":
		return nil
	case match != client.MatchExact && match != client.MatchNotOlderThan:
		return apierrors.FieldErrors{NotSupported(p, match, client.MatchExact, client.MatchNotOlderThan, "")}
	case opts.Continue != "":
		return apierrors.FieldErrors{Forbidden(p, "resourceVersionMatch is forbidden when continue is provided")}
	case opts.ResourceVersion == "":
		return apierrors.FieldErrors{Forbidden(p, "resourceVersionMatch is forbidden unless resourceVersion is provided")}
	case match == client.MatchExact && opts.ResourceVersion == "0":
		return apierrors.FieldErrors{Forbidden(p, `resourceVersionMatch "exact" is forbidden for resourceVersion "0"`)}
	}
	return nil
}

// readError maps a store read error to the API's.
func (s *Server) readError(err error, rev int64, continuing bool, prefix, after string) error {
	var ce *store.CompactedError
	switch {
	case errors.As(err, &ce) && continuing:
		e := apierrors.NewResourceExpired("The provided continue parameter is too old to display a consistent list result. " +
			"You can start a new list without the continue parameter, or use the continue token in this response to " +
			"retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - " +
			"objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.")
		e.Status.Metadata.Continue = encodeContinue(-1, strings.TrimPrefix(after, prefix))
		return e
	case errors.As(err, &ce):
		return apierrors.NewTooOldResourceVersion(rev, ce.CompactRev)
	case errors.Is(err, store.ErrFutureRev):
		return apierrors.NewTooLargeResourceVersion(rev, s.store.Rev())
	}
	return apierrors.NewInternalError(err)
}

func parseRV(rv string) (int64, error) {
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil || n < 0 {
		return 0, apierrors.NewBadRequest(fmt.Sprintf("invalid resourceVersion %q: must be a non-negative decimal number", rv))
	}
	return n, nil
}

// continueToken is the JSON inside a continue token, in the shape
// kube-apiserver uses: the revision the list is read at, and the key (below
// the list's prefix) to resume after, ending in NUL.
type continueToken struct {
	APIVersion      string `json:"v"`
	ResourceVersion int64  `json:"rv"`
	StartKey        string `json:"start"`
}

const continueTokenVersion = "meta.k8s.io/v1"

func encodeContinue(rev int64, lastKey string) string {
	b, _ := json.Marshal(continueToken{APIVersion: continueTokenVersion, ResourceVersion: rev, StartKey: lastKey + "\x00"})
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeContinue returns the revision (0 for a token that continues at the
// latest one) and the relative key to start after.
func decodeContinue(token string) (int64, string, error) {
	bad := func(why string) error {
		return apierrors.NewBadRequest("invalid continue token: " + why)
	}
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return 0, "", bad("not base64")
	}
	var t continueToken
	if err := json.Unmarshal(b, &t); err != nil {
		return 0, "", bad("not a token")
	}
	if t.APIVersion != continueTokenVersion {
		return 0, "", bad(fmt.Sprintf("unknown version %q", t.APIVersion))
	}
	start, ok := strings.CutSuffix(t.StartKey, "\x00")
	if !ok || start == "" || strings.Contains(start, "..") || strings.HasPrefix(start, "/") {
		return 0, "", bad("bad start key")
	}
	switch {
	case t.ResourceVersion == -1:
		return 0, start, nil
	case t.ResourceVersion <= 0:
		return 0, "", bad("bad resource version")
	}
	return t.ResourceVersion, start, nil
}
