package nodesim

import (
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/miniplane/miniplane/api"
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
	prefix, err := parsePodCIDR(cidr)
	if err != nil {
		return netip.Addr{}, err
	}
	return nextPodIPIn(prefix, from, used)
}

// parsePodCIDR parses a node's pod range, masked.
func parsePodCIDR(cidr string) (netip.Prefix, error) {
	prefix, err := netip.ParsePrefix(cidr)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("nodesim: pod CIDR %q: %w", cidr, err)
	}
	return prefix.Masked(), nil
}

// nextPodIPIn is nextPodIP with the range parsed (parsePodCIDR).
func nextPodIPIn(prefix netip.Prefix, from netip.Addr, used func(netip.Addr) bool) (netip.Addr, error) {
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

// nodeIPs is nodesim's record of one node: what it handed out of the
// node's pod range, and the node as a sync last read it. The Controller's
// mu guards it.
type nodeIPs struct {
	name string
	// node is the node as the last sync that read the cache read it, at
	// the node handler's delivery count gen (nodeLocked), and ready and
	// readySince are nodeReady(node), worked out when it was read: every
	// sync of a pod asks whether its node is up, and the node's
	// conditions are then in no cache line.
	node       *api.Node
	gen        uint64
	ready      bool
	readySince time.Time
	// taken holds the addresses in use, address → pod key; an address is
	// freed when its pod is gone.
	taken map[netip.Addr]string
	// low is an address below which every address of the range that
	// nodesim hands out is taken (invalid: none known), so that allocation
	// need not scan the taken ones.
	low netip.Addr
	// cidr is the range last parsed, into prefix (or err): a node's range
	// does not change, so it is parsed once, not at every pod.
	cidr   string
	prefix netip.Prefix
	err    error
	parsed bool
}

// setNode records node, read from the cache at the node handler's
// delivery count gen, and whether it is ready.
func (n *nodeIPs) setNode(node *api.Node, gen uint64) {
	n.node, n.gen = node, gen
	n.ready, n.readySince = nodeReady(node)
}

// rangeOf returns cidr, the node's pod range, parsed.
func (n *nodeIPs) rangeOf(cidr string) (netip.Prefix, error) {
	if !n.parsed || n.cidr != cidr {
		n.prefix, n.err = parsePodCIDR(cidr)
		n.cidr, n.parsed = cidr, true
	}
	return n.prefix, n.err
}

// hold records that the pod under key, whose state is st, holds addr on
// n's node.
func (n *nodeIPs) hold(st *podState, key string, addr netip.Addr) {
	n.taken[addr] = key
	if n.low == addr {
		n.low = addr.Next() // the mark's address is taken now
	}
	st.ips, st.addr = n, addr
}

// free lets the pod under key, whose state is st, go of its address.
func (n *nodeIPs) free(st *podState, key string) {
	if n.taken[st.addr] != key {
		return // another pod's now (or never this one's)
	}
	delete(n.taken, st.addr)
	if n.low.IsValid() && st.addr.Less(n.low) {
		n.low = st.addr // a hole below the mark: the lowest free now
	}
}
