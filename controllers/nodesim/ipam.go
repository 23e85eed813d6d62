package nodesim

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client/record"
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
	// the node handler's delivery count gen (nodeLocked), and ready is
	// nodeReady(node), worked out when it was read: every
	// sync of a pod asks whether its node is up, and the node's
	// conditions are then in no cache line. hostIP is hostIP(node), for
	// the same reason: every pod's status takes it, twice.
	node   *api.Node
	gen    uint64
	ready  bool
	hostIP string
	// events is the node's kubelet's event recorder, when each has its
	// own (kubeletRecorderLocked).
	events *record.EventRecorder
	// owners and elsewhere hold the addresses in use, each with the key
	// of the pod holding it; an address is freed when its pod is gone.
	// owners is indexed by an address's offset in the range (prefix, an
	// IPv4 range of at most maxOwned addresses; nil for any other):
	// "" is free; used has the offset's bit set when it is not, so that
	// an allocation's search reads the record alone, whose lines a sync
	// has just read (nodeLocked), not the slice. elsewhere holds the
	// addresses outside it, which only a pod's status can bring (claim),
	// or all of a larger range's. The slice and bitmap of a /24 replace a
	// map of the addresses (a lookup per allocation, one per hold and
	// per free, each a cache miss); held counts the addresses in both.
	owners    []string
	used      [maxOwned / 64]uint64
	elsewhere map[netip.Addr]string
	held      int
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

// maxOwned is the most addresses a range may have for nodeIPs.owners to
// cover it: a /24, a node's pod range by default in Kubernetes
// (--node-cidr-mask-size) and here.
const maxOwned = 1 << maxOwnedBits

// maxOwnedBits is the host bits of the largest range owners covers.
const maxOwnedBits = 8

// setNode records node, read from the cache at the node handler's
// delivery count gen, and whether it is ready.
func (n *nodeIPs) setNode(node *api.Node, gen uint64) {
	n.node, n.gen = node, gen
	n.ready = nodeReady(node)
	n.hostIP = hostIP(node)
}

// hostIPOf is hostIP(node), read from the record when it holds that node
// (another sync may have read a newer one since nodeLocked returned them).
func (n *nodeIPs) hostIPOf(node *api.Node) string {
	if n.node != node {
		return hostIP(node)
	}
	return n.hostIP
}

// rangeOf returns cidr, the node's pod range, parsed. A range other than
// the one last parsed files the held addresses again, where the new one
// puts them (owners or elsewhere).
func (n *nodeIPs) rangeOf(cidr string) (netip.Prefix, error) {
	if !n.parsed || n.cidr != cidr {
		held := make(map[netip.Addr]string, n.held)
		n.each(func(a netip.Addr, key string) { held[a] = key })
		n.prefix, n.err = parsePodCIDR(cidr)
		n.cidr, n.parsed = cidr, true
		n.owners, n.used, n.elsewhere, n.held = nil, [maxOwned / 64]uint64{}, nil, 0
		if hostBits := 32 - n.prefix.Bits(); n.err == nil && n.prefix.Addr().Is4() && hostBits <= maxOwnedBits {
			n.owners = make([]string, 1<<hostBits)
		}
		for a, key := range held {
			n.set(a, key)
		}
	}
	return n.prefix, n.err
}

// offset is addr's index in owners, or -1 if owners does not cover it.
func (n *nodeIPs) offset(addr netip.Addr) int {
	if n.owners == nil || !addr.Is4() || !n.prefix.Contains(addr) {
		return -1
	}
	a, base := addr.As4(), n.prefix.Addr().As4()
	return int(binary.BigEndian.Uint32(a[:]) - binary.BigEndian.Uint32(base[:]))
}

// owner returns the key of the pod holding addr, "" if none.
func (n *nodeIPs) owner(addr netip.Addr) string {
	if i := n.offset(addr); i >= 0 {
		return n.owners[i]
	}
	return n.elsewhere[addr]
}

// taken reports whether a pod holds addr.
func (n *nodeIPs) taken(addr netip.Addr) bool {
	if i := n.offset(addr); i >= 0 {
		return n.used[i/64]&(1<<(i%64)) != 0
	}
	return n.elsewhere[addr] != ""
}

// set files addr as held by key ("": free).
func (n *nodeIPs) set(addr netip.Addr, key string) {
	if n.taken(addr) {
		n.held--
	}
	if key != "" {
		n.held++
	}
	if i := n.offset(addr); i >= 0 {
		n.owners[i] = key
		if key != "" {
			n.used[i/64] |= 1 << (i % 64)
		} else {
			n.used[i/64] &^= 1 << (i % 64)
		}
		return
	}
	switch {
	case key != "" && n.elsewhere == nil:
		n.elsewhere = map[netip.Addr]string{addr: key}
	case key != "":
		n.elsewhere[addr] = key
	default:
		delete(n.elsewhere, addr)
	}
}

// each calls f with every held address and its pod's key: those in the
// range in order, then the others in no order.
func (n *nodeIPs) each(f func(netip.Addr, string)) {
	if n.owners != nil {
		a := n.prefix.Addr()
		for _, key := range n.owners {
			if key != "" {
				f(a, key)
			}
			a = a.Next()
		}
	}
	for a, key := range n.elsewhere {
		f(a, key)
	}
}

// allocate hands the pod under key, whose state is st, the lowest free
// address of cidr, the node's pod range, and returns it.
func (n *nodeIPs) allocate(st *podState, key, cidr string) (netip.Addr, error) {
	// Addresses below the node's low-water mark are all taken, so the
	// search for the lowest free one starts there.
	prefix, err := n.rangeOf(cidr)
	if err != nil {
		return netip.Addr{}, err
	}
	addr, err := nextPodIPIn(prefix, n.low, n.taken)
	if err != nil {
		return netip.Addr{}, err
	}
	n.hold(st, key, addr)
	n.low = addr.Next() // it was the lowest free: all below it are taken
	return addr, nil
}

// hold records that the pod under key, whose state is st, holds addr on
// n's node.
func (n *nodeIPs) hold(st *podState, key string, addr netip.Addr) {
	n.set(addr, key)
	if n.low == addr {
		n.low = addr.Next() // the mark's address is taken now
	}
	st.ips, st.addr = n, addr
}

// free lets the pod under key, whose state is st, go of its address.
func (n *nodeIPs) free(st *podState, key string) {
	if n.owner(st.addr) != key {
		return // another pod's now (or never this one's)
	}
	n.set(st.addr, "")
	if n.low.IsValid() && st.addr.Less(n.low) {
		n.low = st.addr // a hole below the mark: the lowest free now
	}
}
