package serviceaccount

import "github.com/miniplane/miniplane/api"

// DefaultName is the account every namespace gets. Kubernetes:
// serviceaccount.DefaultServiceAccountName.
const DefaultName = "default"

// Missing returns the names of the accounts to create in ns, given which
// accounts the cache holds there: the wanted accounts that are absent, in
// the order wanted lists them; none when the namespace is gone (nil) or is
// not Active, as Kubernetes creates nothing in a terminating namespace.
func Missing(ns *api.Namespace, wanted []string, has func(name string) bool) []string {
	if ns == nil || ns.Status.Phase != api.NamespaceActive {
		return nil
	}
	var out []string
	for _, name := range wanted {
		if !has(name) {
			out = append(out, name)
		}
	}
	return out
}
