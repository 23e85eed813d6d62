package nodesim

import (
	"errors"
	"fmt"
	"net/netip"
)

// errRangeFull says a node's pod range has no address left.
var errRangeFull = errors.New("nodesim: pod CIDR exhausted")

// nodeCIDR is the pod range of the node with index i: 10.244.i.0/24 for the
// first 256 nodes, as kubeadm's default cluster CIDR 10.244.0.0/16 splits it,
// then on through 10.245.0.0/16 and up (MaxNodes in all).
func nodeCIDR(i int) string { return fmt.Sprintf("10.%d.%d.0/24", 244+i/256, i%256) }

// nodeIP is the InternalIP of the node with index i: 10.0.0.1 upwards.
func nodeIP(i int) string { return fmt.Sprintf("10.0.%d.%d", (i+1)/256, (i+1)%256) }

// nextPodIP returns the lowest free pod address in cidr: the network address
// and the first host address (the node's bridge, as with the bridge CNI
// plugin) are skipped, and so is the broadcast address of an IPv4 range.
// used reports the addresses taken; every address below from (when it is
// valid) is known to be taken, so the search starts there. An address
// freed by a pod that is gone is free again, so the lowest-free rule
// reuses it: allocation is deterministic.
func nextPodIP(cidr string, from netip.Addr, used func(netip.Addr) bool) (netip.Addr, error) {
	prefix, err := netip.ParsePrefix(cidr)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("nodesim: pod CIDR %q: %w", cidr, err)
	}
	prefix = prefix.Masked()
	addr := prefix.Addr().Next() // the bridge
	if !addr.IsValid() {
		return netip.Addr{}, errRangeFull
	}
	addr = addr.Next()
	if from.IsValid() && addr.Less(from) {
		if !prefix.Contains(from) {
			return netip.Addr{}, errRangeFull // all below it taken: the whole range
		}
		addr = from
	}
	for ; addr.IsValid() && prefix.Contains(addr); addr = addr.Next() {
		if addr.Is4() && !prefix.Contains(addr.Next()) {
			break // broadcast
		}
		if !used(addr) {
			return addr, nil
		}
	}
	return netip.Addr{}, errRangeFull
}
