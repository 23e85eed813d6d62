package informer

import (
	"fmt"
	"sync"

	"github.com/miniplane/miniplane/api"
)

// NodeNameIndex is an index the kubelets and the scheduler add to a shared
// pod informer: the pods bound to a node, by spec.nodeName (an unbound pod
// is in none). Kubernetes: the kubelet's and the scheduler's pod
// informers filtered by spec.nodeName, and the scheduler cache's NodeInfo
// pods.
const NodeNameIndex = "spec.nodeName"

// nodeNameValues makes the values of NodeNameIndex: a pod's node name, in
// a one-element slice. The cache indexes a pod at every change of it, and
// only reads what an IndexFunc returns, so the slice of each node is made
// once and shared. mu guards byNode, which grows by one entry per node
// name ever bound to.
type nodeNameValues struct {
	mu     sync.Mutex
	byNode map[string][]string
}

// podNodeName indexes a pod by the node it is bound to, if any.
func (v *nodeNameValues) podNodeName(obj api.Object) []string {
	p, ok := obj.(*api.Pod)
	if !ok || p.Spec.NodeName == "" {
		return nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	vals, ok := v.byNode[p.Spec.NodeName]
	if !ok {
		if v.byNode == nil {
			v.byNode = make(map[string][]string)
		}
		vals = []string{p.Spec.NodeName}
		v.byNode[p.Spec.NodeName] = vals
	}
	return vals
}

// AddNodeNameIndex adds NodeNameIndex to x, unless it is there already
// (another component on the same factory added it).
func AddNodeNameIndex(x *Indexer) error {
	if _, missing := x.IndexKeys(NodeNameIndex, ""); missing == nil {
		return nil
	}
	if err := x.AddIndexers(map[string]IndexFunc{NodeNameIndex: new(nodeNameValues).podNodeName}); err != nil {
		if _, missing := x.IndexKeys(NodeNameIndex, ""); missing == nil {
			return nil // added meanwhile
		}
		return fmt.Errorf("adding the %s index: %w", NodeNameIndex, err)
	}
	return nil
}
