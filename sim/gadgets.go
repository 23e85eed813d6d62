package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/controllers/loop"
	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/controllers/workqueue"
	"github.com/miniplane/miniplane/informer"
)

// Gadgets is the client name of the Gadget resource GadgetDefinition
// serves.
const Gadgets = "gadgets.gadgets.example.com"

// gadgetCRD is GadgetDefinition in JSON, as a user would write it.
const gadgetCRD = `{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "gadgets.gadgets.example.com"},
  "spec": {"group": "gadgets.example.com", "scope": "Namespaced",
    "names": {"plural": "gadgets", "kind": "Gadget"},
    "versions": [{"name": "v1", "served": true, "storage": true, "subresources": {"status": {}},
      "schema": {"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "properties": {"size": {"type": "integer"}}},
        "status": {"type": "object", "properties": {"observedGeneration": {"type": "integer"}}}}}}}]}}`

// GadgetDefinition returns the CustomResourceDefinition of Gadgets
// (gadgets.example.com/v1, namespaced, with a status subresource): the
// kind the "gadgets" scenario's operator reconciles.
func GadgetDefinition() *api.CustomResourceDefinition {
	var crd api.CustomResourceDefinition
	if err := json.Unmarshal([]byte(gadgetCRD), &crd); err != nil {
		panic("sim: the Gadget definition does not decode: " + err.Error()) // a constant
	}
	return &crd
}

// gadgetController is an operator in miniature, run by the simulator as
// the built-in controllers are (GadgetOperator registers it): for each
// Gadget it keeps a ConfigMap "<name>-config" holding spec.size,
// controlled by the Gadget, and records in the Gadget's status the
// generation it made it for. It reads Gadgets as data (api.Unstructured),
// since a custom kind has no Go type, through the same informers as the
// built-in kinds.
//
// Its embedded *loop.Loop gives it HasSynced, Queue, ProcessOne and Run:
// the step the simulator takes, and what a live manager would call.
type gadgetController struct {
	*loop.Loop
	client  client.Client
	gadgets informer.Lister[*api.Unstructured]
	cms     informer.Lister[*api.ConfigMap]
}

// GadgetOperator registers the Gadget operator, as
// manager.DefaultDescriptors registers the built-in controllers; it needs
// GadgetDefinition installed before the instances start.
func GadgetOperator() manager.Descriptor {
	return manager.Descriptor{Name: "gadgets", Init: func(ic manager.InitContext) (manager.Controller, int, error) {
		gInf, cmInf := ic.Factory.ForResource(Gadgets), ic.Factory.ForResource(client.ConfigMaps)
		c := &gadgetController{
			client:  ic.Client,
			gadgets: informer.NewLister[*api.Unstructured](gInf, apierrors.GroupResource{Group: "gadgets.example.com", Resource: "gadgets"}),
			cms:     informer.NewLister[*api.ConfigMap](cmInf, apierrors.GroupResource{Resource: client.ConfigMaps}),
		}
		queue := workqueue.New(workqueue.Config[string]{Name: "gadgets", Clock: ic.Clock})
		enqueue := func(obj api.Object) { queue.Add(api.KeyOf(obj.GetObjectMeta())) }
		owner := func(obj api.Object) {
			m := obj.GetObjectMeta()
			for _, r := range m.OwnerReferences {
				if r.Kind == "Gadget" && r.Controller != nil && *r.Controller {
					queue.Add(m.Namespace + "/" + r.Name)
				}
			}
		}
		regs := []*informer.Registration{
			gInf.AddEventHandler(informer.HandlerFuncs{
				AddFunc:    func(obj api.Object, _ bool) { enqueue(obj) },
				UpdateFunc: func(_, obj api.Object) { enqueue(obj) },
			}, 0),
			cmInf.AddEventHandler(informer.HandlerFuncs{
				UpdateFunc: func(_, obj api.Object) { owner(obj) },
				DeleteFunc: func(obj any) {
					if o, _ := informer.DeletedObject(obj); o != nil {
						owner(o)
					}
				},
			}, 0),
		}
		var err error
		c.Loop, err = loop.New(loop.Config{Name: "gadgets", Queue: queue, Sync: c.sync,
			Informers: []*informer.Informer{gInf, cmInf}, Registrations: regs, Logger: ic.Logger})
		if err != nil {
			return nil, 0, err
		}
		return c, 1, nil
	}}
}

func (c *gadgetController) sync(ctx context.Context, key string) error {
	ns, name, err := api.SplitKey(key)
	if err != nil {
		return err
	}
	g, err := c.gadgets.Namespace(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	size := fmt.Sprint(g.Content["spec"].(map[string]any)["size"])
	yes := true
	want := &api.ConfigMap{
		Metadata: api.ObjectMeta{Namespace: ns, Name: name + "-config", OwnerReferences: []api.OwnerReference{{
			APIVersion: g.APIVersion, Kind: g.Kind, Name: name, UID: g.Metadata.UID, Controller: &yes}}},
		Data: map[string]string{"size": size},
	}
	cm, err := c.cms.Namespace(ns).Get(want.Metadata.Name)
	switch {
	case apierrors.IsNotFound(err):
		if _, err := c.client.Create(ctx, want); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	case err != nil:
		return err
	case cm.Data["size"] != size:
		cm = cm.DeepCopy()
		cm.Data = want.Data
		if _, err := c.client.Update(ctx, cm); err != nil {
			return err
		}
	}
	status, _ := g.Content["status"].(map[string]any)
	if fmt.Sprint(status["observedGeneration"]) == fmt.Sprint(g.Metadata.Generation) {
		return nil
	}
	g = g.DeepCopy()
	g.Content["status"] = map[string]any{"observedGeneration": g.Metadata.Generation}
	_, err = c.client.UpdateStatus(ctx, g)
	return err
}

// GadgetsConverged is GadgetOperator's promise, checked when the system is
// quiet: every Gadget has its ConfigMap, controlled by it and holding its
// size, and its status names the generation it was made for; and the
// garbage collector's, which follows custom resources: no ConfigMap is
// owned by a Gadget that is gone.
var GadgetsConverged = Invariant{Name: "gadgets-converged", Check: func(ctx context.Context, s *Sim) error {
	list, err := s.user.List(ctx, Gadgets, "", client.ListOptions{})
	if err != nil {
		return err
	}
	live := make(map[api.UID]bool, len(list.Items))
	for _, obj := range list.Items {
		live[obj.GetObjectMeta().UID] = true
	}
	cms, err := s.user.List(ctx, client.ConfigMaps, "", client.ListOptions{})
	if err != nil {
		return err
	}
	for _, obj := range cms.Items {
		m := obj.GetObjectMeta()
		for _, ref := range m.OwnerReferences {
			if ref.Kind == "Gadget" && !live[ref.UID] {
				return failedOn([]string{"ConfigMap " + api.KeyOf(m), "Gadget " + m.Namespace + "/" + ref.Name}, "gadgets-converged",
					"ConfigMap %s is owned by Gadget %s (uid %s), which is gone", api.KeyOf(m), ref.Name, ref.UID)
			}
		}
	}
	for _, obj := range list.Items {
		g := obj.(*api.Unstructured)
		key := api.KeyOf(&g.Metadata)
		cmObj, err := s.user.Get(ctx, client.ConfigMaps, g.Metadata.Namespace, g.Metadata.Name+"-config", client.GetOptions{})
		if err != nil {
			return fmt.Errorf("gadget %s: its ConfigMap: %w", key, err)
		}
		cm := cmObj.(*api.ConfigMap)
		if owner := controllerOf(cm.Metadata); owner != "Gadget "+key {
			return fmt.Errorf("gadget %s: its ConfigMap's controller is %q", key, owner)
		}
		if want := fmt.Sprint(g.Content["spec"].(map[string]any)["size"]); cm.Data["size"] != want {
			return fmt.Errorf("gadget %s: its ConfigMap holds size %q, want %q", key, cm.Data["size"], want)
		}
		status, _ := g.Content["status"].(map[string]any)
		if got := fmt.Sprint(status["observedGeneration"]); got != fmt.Sprint(g.Metadata.Generation) {
			return fmt.Errorf("gadget %s: status.observedGeneration %s at generation %d", key, got, g.Metadata.Generation)
		}
	}
	return nil
}}

// gadgetScenario installs GadgetDefinition at the start and has the user
// create two Gadgets, grow the first, shrink the second and delete it (the
// garbage collector deletes its ConfigMap); the scenario runs
// GadgetOperator beside the built-in controllers.
func gadgetScenario(s *Sim, d time.Duration) {
	if _, err := s.srv.Create(context.Background(), GadgetDefinition()); err != nil {
		s.violate("scenario", "installing the Gadget definition: "+err.Error())
		return
	}
	gadget := func(name string, size int64) *api.Unstructured {
		return &api.Unstructured{
			TypeMeta: api.TypeMeta{APIVersion: "gadgets.example.com/v1", Kind: "Gadget"},
			Metadata: api.ObjectMeta{Namespace: "default", Name: name},
			Content:  api.JSONObject{"spec": map[string]any{"size": size}},
		}
	}
	resize := func(name string, size int64) func(ctx context.Context) error {
		return func(ctx context.Context) error {
			obj, err := s.user.Get(ctx, Gadgets, "default", name, client.GetOptions{})
			if err != nil {
				return err
			}
			g := obj.(*api.Unstructured).DeepCopy()
			g.Content["spec"] = map[string]any{"size": size}
			_, err = s.user.Update(ctx, g)
			return err
		}
	}
	s.userAction(time.Second, d, "create gadget big (size 1)", func(ctx context.Context) error {
		_, err := s.user.Create(ctx, gadget("big", 1))
		return err
	})
	s.userAction(2*time.Second, d, "create gadget small (size 2)", func(ctx context.Context) error {
		_, err := s.user.Create(ctx, gadget("small", 2))
		return err
	})
	s.userAction(20*time.Second, d, "grow gadget big to 3", resize("big", 3))
	s.userAction(40*time.Second, d, "shrink gadget small to 1", resize("small", 1))
	s.userAction(60*time.Second, d, "delete gadget small", func(ctx context.Context) error {
		_, err := s.user.Delete(ctx, Gadgets, "default", "small", api.DeleteOptions{})
		return err
	})
}
