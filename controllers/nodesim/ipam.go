package nodesim

import (
	"errors"
	"fmt"
	"net/netip"
)

// errRangeFull says a node's pod range has no address left.
var errRangeFull = errors.New("nodesim: pod CIDR exhausted")

// nodeCIDR is the pod range of the node with index i: 10.244.i.0/24, as
// kubeadm's default cluster CIDR 10.244.0.0/16 splits it.
func nodeCIDR(i int) string { return fmt.Sprintf("10.244.%d.0/24", i) }

// nextPodIP returns the lowest free pod address in cidr: the network address
// and the first host address (the node's bridge, as with the bridge CNI
// plugin) are skipped, and so is the broadcast address of an IPv4 range.
// used holds the addresses taken. An address freed by a pod that is gone is
// free again, so the lowest-free rule reuses it: allocation is deterministic.
func nextPodIP(cidr string, used map[string]bool) (string, error) {
	prefix, err := netip.ParsePrefix(cidr)
	if err != nil {
		return "", fmt.Errorf("nodesim: pod CIDR %q: %w", cidr, err)
	}
	prefix = prefix.Masked()
	addr := prefix.Addr().Next() // the bridge
	if !addr.IsValid() {
		return "", errRangeFull
	}
	for addr = addr.Next(); addr.IsValid() && prefix.Contains(addr); addr = addr.Next() {
		if addr.Is4() && !prefix.Contains(addr.Next()) {
			break // broadcast
		}
		if s := addr.String(); !used[s] {
			return s, nil
		}
	}
	return "", errRangeFull
}
