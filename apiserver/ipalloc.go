package apiserver

import (
	"errors"
	"net/netip"
)

// serviceCIDR is where service cluster IPs come from: kubeadm's default.
var serviceCIDR = netip.MustParsePrefix("10.96.0.0/12")

// ipAllocator hands out service cluster IPs from serviceCIDR, neither its
// network nor its broadcast address: offset 0 is the range's first address
// after the network's, as in Kubernetes' ipallocator.Range. The zero value
// is ready to use.
type ipAllocator struct {
	rangeAllocator
}

// ipRangeSize is how many addresses serviceCIDR lends.
func ipRangeSize() int { return 1<<(32-serviceCIDR.Bits()) - 2 }

func newIPAllocator() ipAllocator {
	return ipAllocator{newRangeAllocator(serviceCIDR.String(), ipRangeSize())}
}

// offset is ip's place in the range; false when ip is not in it.
func (a *ipAllocator) offset(ip netip.Addr) (int, bool) {
	if !serviceCIDR.Contains(ip) || !ip.Is4() {
		return 0, false
	}
	b, base := ip.As4(), serviceCIDR.Addr().As4()
	i := int(uint32(b[0])<<24|uint32(b[1])<<16|uint32(b[2])<<8|uint32(b[3])) -
		int(uint32(base[0])<<24|uint32(base[1])<<16|uint32(base[2])<<8|uint32(base[3])) - 1
	return i, i >= 0 && i < a.size
}

// addr is the address at offset i.
func (a *ipAllocator) addr(i int) netip.Addr {
	base := serviceCIDR.Addr().As4()
	n := uint32(base[0])<<24 | uint32(base[1])<<16 | uint32(base[2])<<8 | uint32(base[3]) + uint32(i) + 1
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)})
}

// keep holds ip back from allocate, as Kubernetes reserves the first
// address of the range for the kubernetes Service.
func (a *ipAllocator) keep(ip netip.Addr) {
	if i, ok := a.offset(ip); ok {
		a.mu.Lock()
		a.skip = i
		a.mu.Unlock()
	}
}

// allocate returns a free address and marks it used (dry: not).
func (a *ipAllocator) allocate(dry bool) (string, error) {
	i, err := a.allocateNext(dry)
	if err != nil {
		return "", err
	}
	return a.addr(i).String(), nil
}

// reserve marks a client-chosen address used, or says why it cannot be, in
// kube-apiserver's words (dry: checks only).
func (a *ipAllocator) reserve(s string, dry bool) error {
	ip, err := netip.ParseAddr(s)
	if err != nil {
		return refusal("must be a valid IP address")
	}
	i, ok := a.offset(ip)
	if !ok {
		return refusal("provided IP is not in the valid range. The range of valid IPs is " + serviceCIDR.String())
	}
	switch err := a.rangeAllocator.allocate(i, dry); {
	case errors.Is(err, errAllocated):
		return refusal("provided IP is already allocated")
	case err != nil:
		return err
	}
	return nil
}

// release returns an address to the pool; unknown addresses are ignored.
func (a *ipAllocator) release(s string) {
	if ip, err := netip.ParseAddr(s); err == nil {
		if i, ok := a.offset(ip); ok {
			a.rangeAllocator.release(i)
		}
	}
}
