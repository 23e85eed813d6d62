package sim

import (
	"context"
	"errors"
	"fmt"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/election"
)

// recordingClient traces every successful write of one actor, with the
// revision it made, and checks the invariants that concern writes: the
// store's revision only rises, a controller-manager instance writes only
// with a term no older than the last write's (and no two instances share
// a term), and no replication controller creates a pod beyond the most
// replicas it was ever asked for.
type recordingClient struct {
	client.Client
	s     *Sim
	actor string
	inst  *instance // nil for actors outside the controller managers
	term  int64     // the term this client's controllers were built for
}

func (c *recordingClient) wrote(kind string, obj api.Object, key string) {
	s := c.s
	rev := s.srv.Store().Rev()
	var state ObjState
	if obj != nil {
		state = stateOf(obj)
		key = kindOf(obj) + " " + key
		if kind == "delete" {
			_, err := s.srv.Get(context.Background(), client.ResourceOf(obj), obj.GetObjectMeta().Namespace, obj.GetObjectMeta().Name, client.GetOptions{})
			state.Gone = apierrors.IsNotFound(err)
		}
	}
	unchanged := rev == s.lastWriteRev // the server stores no write that changes nothing
	var detail string
	switch {
	case unchanged:
		detail = "unchanged"
	case c.inst != nil:
		detail = fmt.Sprintf("term=%d", c.term)
	}
	ev := Event{Actor: c.actor, Kind: kind, Key: key, Rev: rev, Detail: detail}
	if !unchanged && obj != nil {
		ev.Obj = objJSON(state)
	}
	s.record(ev)
	if rev < s.lastWriteRev {
		s.violate("revisions-rise", fmt.Sprintf("%s %s made revision %d after revision %d", kind, key, rev, s.lastWriteRev))
	}
	s.lastWriteRev = rev
	if unchanged {
		return
	}
	if _, lease := obj.(*api.Lease); !lease {
		s.dirty = true
	}
	if c.inst != nil {
		s.checkTerm(c.inst, c.term, key, rev)
		s.maybeHoldAfterWrite(c.inst, obj)
	}
	if pod, ok := obj.(*api.Pod); ok && kind == "create" {
		s.checkOvershoot(pod)
		s.checkStatefulSetCreate(pod)
		s.checkJobCreate(pod)
	}
	if rs, ok := obj.(*api.ReplicaSet); ok {
		s.checkDeploymentWrite(c.actor, kind, rs)
	}
	switch obj.(type) {
	case *api.ReplicationController, *api.ReplicaSet:
		r := replicatedOf(obj)
		s.maxReplicas[r.meta.UID] = max(s.maxReplicas[r.meta.UID], r.replicas)
	}
}

// refused traces a write the leader's guard refused: the instance's
// controllers acted after its leadership lapsed, and were stopped.
func (c *recordingClient) refused(kind, key string, err error) {
	if errors.Is(err, election.ErrNotLeader) {
		c.s.record(Event{Actor: c.actor, Kind: "refused", Key: key, Detail: kind + ": " + err.Error()})
	}
}

// objKey returns the key with its kind of an object about to be written.
func objKey(obj api.Object) string {
	_, ns, name := objName(obj)
	if ns == "" {
		return kindOf(obj) + " " + name
	}
	return kindOf(obj) + " " + ns + "/" + name
}

func (c *recordingClient) Create(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error) {
	out, err := c.Client.Create(ctx, obj, opts...)
	if err == nil {
		c.wrote("create", out, api.KeyOf(out.GetObjectMeta()))
	} else {
		c.refused("create", objKey(obj), err)
	}
	return out, err
}

func (c *recordingClient) Update(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error) {
	out, err := c.Client.Update(ctx, obj, opts...)
	if err == nil {
		c.wrote("update", out, api.KeyOf(out.GetObjectMeta()))
	} else {
		c.refused("update", objKey(obj), err)
	}
	return out, err
}

func (c *recordingClient) UpdateStatus(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error) {
	out, err := c.Client.UpdateStatus(ctx, obj, opts...)
	if err == nil {
		c.wrote("status", out, api.KeyOf(out.GetObjectMeta()))
	} else {
		c.refused("status", objKey(obj), err)
	}
	return out, err
}

func (c *recordingClient) Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (api.Object, error) {
	out, err := c.Client.Delete(ctx, resource, namespace, name, opts)
	key := name
	if namespace != "" {
		key = namespace + "/" + name
	}
	if err == nil {
		c.wrote("delete", out, key)
	} else {
		c.refused("delete", key, err)
	}
	return out, err
}

// binder is the scheduler's pods/binding writer, traced like the other writes.
type binder struct {
	c   *faultClient
	rec *recordingClient
}

func (b binder) Bind(ctx context.Context, namespace, name, node string) (*api.Pod, error) {
	pod, err := b.c.Bind(ctx, namespace, name, node)
	if err == nil {
		b.rec.wrote("bind", pod, api.KeyOf(&pod.Metadata))
	}
	return pod, err
}
