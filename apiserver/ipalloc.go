package apiserver

import (
	"fmt"
	"net/netip"
	"sync"
)

// serviceCIDR is where service cluster IPs come from: kubeadm's default.
var serviceCIDR = netip.MustParsePrefix("10.96.0.0/12")

// ipAllocator hands out service cluster IPs: sequentially from the bottom
// of serviceCIDR (Kubernetes draws them at random; sequential keeps a run
// reproducible without touching the shared random source), never the same
// one twice while it is held. The zero value is ready to use.
type ipAllocator struct {
	// mu guards next, used and kept.
	mu   sync.Mutex
	next netip.Addr // where the search for a free address starts
	used map[netip.Addr]bool
	// kept is an address allocate never hands out (the kubernetes
	// Service's, which asks for it by name); invalid: none.
	kept netip.Addr
}

// keep holds ip back from allocate, as Kubernetes reserves the first
// address of the range for the kubernetes Service.
func (a *ipAllocator) keep(ip netip.Addr) {
	a.mu.Lock()
	a.kept = ip
	a.mu.Unlock()
}

// allocate returns a free address and marks it used.
func (a *ipAllocator) allocate() (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.used == nil {
		a.used = make(map[netip.Addr]bool)
	}
	if !a.next.IsValid() {
		a.next = serviceCIDR.Addr().Next() // skip the network address
	}
	start := a.next
	for {
		ip := a.next
		a.next = a.next.Next()
		if !serviceCIDR.Contains(a.next) {
			a.next = serviceCIDR.Addr().Next()
		}
		if !a.used[ip] && ip != a.kept && serviceCIDR.Contains(ip.Next()) { // keep off the last address
			a.used[ip] = true
			return ip.String(), nil
		}
		if a.next == start {
			return "", fmt.Errorf("range is full")
		}
	}
}

// reserve marks a client-chosen address used, or says why it cannot be.
func (a *ipAllocator) reserve(s string) error {
	ip, err := netip.ParseAddr(s)
	if err != nil {
		return fmt.Errorf("must be a valid IP address")
	}
	if !serviceCIDR.Contains(ip) {
		return fmt.Errorf("provided IP is not in the valid range. The range of valid IPs is %s", serviceCIDR)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.used == nil {
		a.used = make(map[netip.Addr]bool)
	}
	if a.used[ip] {
		return fmt.Errorf("provided IP is already allocated")
	}
	a.used[ip] = true
	return nil
}

// release returns an address to the pool; unknown addresses are ignored.
func (a *ipAllocator) release(s string) {
	ip, err := netip.ParseAddr(s)
	if err != nil {
		return
	}
	a.mu.Lock()
	delete(a.used, ip)
	a.mu.Unlock()
}
