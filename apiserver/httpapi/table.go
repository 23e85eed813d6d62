package httpapi

import (
	"fmt"
	"strings"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
)

// table is a meta.k8s.io Table: kubectl prints its columns and rows as
// they are, so the server decides what `kubectl get` shows. Kubernetes:
// metav1.Table, filled by pkg/printers/internalversion.
type table struct {
	Kind              string       `json:"kind"`
	APIVersion        string       `json:"apiVersion"`
	Metadata          api.ListMeta `json:"metadata"`
	ColumnDefinitions []column     `json:"columnDefinitions"`
	Rows              []row        `json:"rows"`
}

// column defines one column; Priority 1 columns show with -o wide only.
type column struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format"`
	Description string `json:"description"`
	Priority    int    `json:"priority"`
}

// row is one object's cells, with the object (its metadata by default),
// which kubectl needs for --show-labels, -A and --sort-by.
type row struct {
	Cells  []any `json:"cells"`
	Object any   `json:"object,omitempty"`
}

// printer is how one resource is shown: its columns and a row's cells.
type printer struct {
	columns []column
	cells   func(obj api.Object, now time.Time) []any
}

func col(name, typ, description string, priority int) column {
	c := column{Name: name, Type: typ, Description: description, Priority: priority}
	if name == "Name" {
		c.Format = "name"
	}
	return c
}

var nameColumn = col("Name", "string", "Name must be unique within a namespace.", 0)
var ageColumn = col("Age", "string", "The time since the object was created.", 0)

// printers are kubectl's own columns per resource (Kubernetes'
// pkg/printers/internalversion/printers.go), by group and resource: a
// stored kind served in another group is printed there as Kubernetes
// prints it, through its stored form (events.k8s.io Events read as core
// Events do).
var printers = map[apierrors.GroupResource]printer{
	{Resource: client.Pods}: {
		columns: []column{nameColumn,
			col("Ready", "string", "The aggregate readiness state of this pod for accepting traffic.", 0),
			col("Status", "string", "The aggregate status of the containers in this pod.", 0),
			col("Restarts", "string", "The number of times the containers in this pod have been restarted.", 0),
			ageColumn,
			col("IP", "string", "IP address allocated to the pod.", 1),
			col("Node", "string", "Name of the node the pod is assigned to.", 1),
			col("Nominated Node", "string", "Name of the node the pod is nominated to.", 1),
			col("Readiness Gates", "string", "The readiness gates of the pod.", 1)},
		cells: func(o api.Object, now time.Time) []any {
			p := o.(*api.Pod)
			ready, total, restarts := api.PodReadiness(p)
			return []any{p.Metadata.Name, fmt.Sprintf("%d/%d", ready, total), api.PodStatusReason(p), restarts,
				age(p.Metadata.CreationTimestamp, now), orNone(p.Status.PodIP), orNone(p.Spec.NodeName), "<none>", "<none>"}
		},
	},
	{Resource: client.ReplicationControllers}: {
		columns: []column{nameColumn,
			col("Desired", "integer", "Number of desired pods.", 0),
			col("Current", "integer", "Number of actually running pods.", 0),
			col("Ready", "integer", "Number of pods ready.", 0),
			ageColumn,
			col("Containers", "string", "Names of each container in the template.", 1),
			col("Images", "string", "Images referenced by each container in the template.", 1),
			col("Selector", "string", "Label selector for pods.", 1)},
		cells: func(o api.Object, now time.Time) []any {
			rc := o.(*api.ReplicationController)
			desired := int32(1)
			if rc.Spec.Replicas != nil {
				desired = *rc.Spec.Replicas
			}
			var names, images []string
			if rc.Spec.Template != nil {
				for _, c := range rc.Spec.Template.Spec.Containers {
					names, images = append(names, c.Name), append(images, c.Image)
				}
			}
			return []any{rc.Metadata.Name, desired, rc.Status.Replicas, rc.Status.ReadyReplicas, age(rc.Metadata.CreationTimestamp, now),
				strings.Join(names, ","), strings.Join(images, ","), selectorText(rc.Spec.Selector)}
		},
	},
	{Resource: client.Services}: {
		columns: []column{nameColumn,
			col("Type", "string", "The type of the service.", 0),
			col("Cluster-IP", "string", "The cluster IP of the service.", 0),
			col("External-IP", "string", "The external IPs of the service.", 0),
			col("Port(s)", "string", "The ports the service exposes.", 0),
			ageColumn,
			col("Selector", "string", "Route traffic to pods with labels matching this selector.", 1)},
		cells: func(o api.Object, now time.Time) []any {
			s := o.(*api.Service)
			typ := s.Spec.Type
			if typ == "" {
				typ = api.ServiceTypeClusterIP
			}
			return []any{s.Metadata.Name, string(typ), orNone(s.Spec.ClusterIP), externalIPs(s), servicePorts(s.Spec.Ports),
				age(s.Metadata.CreationTimestamp, now), selectorText(s.Spec.Selector)}
		},
	},
	{Resource: client.Endpoints}: {
		columns: []column{nameColumn, col("Endpoints", "string", "The addresses and ports of the endpoints.", 0), ageColumn},
		cells: func(o api.Object, now time.Time) []any {
			e := o.(*api.Endpoints)
			return []any{e.Metadata.Name, endpointsText(e.Subsets, 3), age(e.Metadata.CreationTimestamp, now)}
		},
	},
	{Group: "batch", Resource: client.Jobs}: {
		columns: []column{nameColumn,
			col("Status", "string", "Status of the job.", 0),
			col("Completions", "string", "The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. However, it may decrease in reaction to scale down of elastic indexed jobs.", 0),
			col("Duration", "string", "Time required to complete the job.", 0),
			ageColumn,
			col("Containers", "string", "Names of each container in the template.", 1),
			col("Images", "string", "Images referenced by each container in the template.", 1),
			col("Selector", "string", "A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors", 1)},
		cells: func(o api.Object, now time.Time) []any {
			j := o.(*api.Job)
			var names, images []string
			for _, c := range j.Spec.Template.Spec.Containers {
				names, images = append(names, c.Name), append(images, c.Image)
			}
			return []any{j.Metadata.Name, jobStatus(j), jobCompletions(j), jobDuration(j, now), age(j.Metadata.CreationTimestamp, now),
				strings.Join(names, ","), strings.Join(images, ","), api.FormatLabelSelector(j.Spec.Selector)}
		},
	},
	{Group: "coordination.k8s.io", Resource: client.Leases}: {
		columns: []column{nameColumn, col("Holder", "string", "The holder of the lease.", 0), ageColumn},
		cells: func(o api.Object, now time.Time) []any {
			l := o.(*api.Lease)
			holder := ""
			if l.Spec.HolderIdentity != nil {
				holder = *l.Spec.HolderIdentity
			}
			return []any{l.Metadata.Name, holder, age(l.Metadata.CreationTimestamp, now)}
		},
	},
	{Resource: client.Nodes}: {
		columns: []column{nameColumn,
			col("Status", "string", "The status of the node.", 0),
			col("Roles", "string", "The roles of the node.", 0),
			ageColumn,
			col("Version", "string", "Kubelet version reported by the node.", 0),
			col("Internal-IP", "string", "The node's internal IP.", 1),
			col("External-IP", "string", "The node's external IP.", 1),
			col("OS-Image", "string", "The node's OS image.", 1),
			col("Kernel-Version", "string", "The node's kernel version.", 1),
			col("Container-Runtime", "string", "The node's container runtime.", 1)},
		cells: func(o api.Object, now time.Time) []any {
			n := o.(*api.Node)
			return []any{n.Metadata.Name, nodeStatus(n), nodeRoles(n), age(n.Metadata.CreationTimestamp, now), n.Status.NodeInfo.KubeletVersion,
				nodeAddress(n, api.NodeInternalIP), nodeAddress(n, api.NodeExternalIP), orUnknown(n.Status.NodeInfo.OSImage),
				orUnknown(n.Status.NodeInfo.KernelVersion), orUnknown(n.Status.NodeInfo.ContainerRuntimeVersion)}
		},
	},
	{Resource: client.Namespaces}: {
		columns: []column{nameColumn, col("Status", "string", "The status of the namespace.", 0), ageColumn},
		cells: func(o api.Object, now time.Time) []any {
			ns := o.(*api.Namespace)
			return []any{ns.Metadata.Name, string(ns.Status.Phase), age(ns.Metadata.CreationTimestamp, now)}
		},
	},
	{Resource: client.Events}: {
		columns: eventColumns,
		cells:   func(o api.Object, now time.Time) []any { return eventCells(o.(*api.Event), now) },
	},
	{Group: "events.k8s.io", Resource: client.Events}: {
		columns: eventColumns,
		cells: func(o api.Object, now time.Time) []any {
			return eventCells(api.EventsV1ToEvent(o.(*api.EventsV1Event)), now)
		},
	},
}

// eventColumns are an event's columns, through either API.
var eventColumns = []column{
	col("Last Seen", "string", "Time since the event was last seen.", 0),
	col("Type", "string", "Type of the event.", 0),
	col("Reason", "string", "Why the event happened.", 0),
	col("Object", "string", "The object the event is about.", 0),
	col("Subobject", "string", "The part of the object the event is about.", 1),
	col("Source", "string", "The component that reported the event.", 1),
	col("Message", "string", "A description of the event.", 0),
	col("First Seen", "string", "Time since the event was first seen.", 1),
	col("Count", "string", "How many times the event happened.", 1),
	col("Name", "string", "Name of the event.", 1),
}

// eventCells is a core/v1 event's row, as Kubernetes' printEvent makes it:
// first seen is firstTimestamp, else eventTime (the newer API sets only
// that); last seen is the series' last observation, else lastTimestamp,
// else first seen; the count is the series', else count, else 1 (a
// singleton of the newer API); the source is source's component and host,
// else the reporting controller and instance.
func eventCells(e *api.Event, now time.Time) []any {
	first := age(e.FirstTimestamp, now)
	if e.FirstTimestamp.IsZero() {
		first = age(api.Time{Time: e.EventTime.Time}, now)
	}
	last := age(e.LastTimestamp, now)
	if e.LastTimestamp.IsZero() {
		last = first
	}
	count := e.Count
	if e.Series != nil {
		last = age(api.Time{Time: e.Series.LastObservedTime.Time}, now)
		count = e.Series.Count
	} else if count == 0 {
		count = 1
	}
	object := strings.ToLower(e.InvolvedObject.Kind)
	if e.InvolvedObject.Name != "" {
		object += "/" + e.InvolvedObject.Name
	}
	return []any{last, e.Type, e.Reason, object, e.InvolvedObject.FieldPath,
		eventSource(e), strings.TrimSpace(e.Message), first, count, e.Metadata.Name}
}

// eventSource is an event's SOURCE cell: "component, host".
func eventSource(e *api.Event) string {
	component, instance := e.Source.Component, e.Source.Host
	if component == "" {
		component = e.ReportingController
	}
	if instance == "" {
		instance = e.ReportingInstance
	}
	if instance == "" {
		return component
	}
	return component + ", " + instance
}

// defaultPrinter is the fallback: name and age.
var defaultPrinter = printer{
	columns: []column{nameColumn, ageColumn},
	cells: func(o api.Object, now time.Time) []any {
		m := o.GetObjectMeta()
		return []any{m.Name, age(m.CreationTimestamp, now)}
	},
}

// declaredPrinter prints the columns a kind declared with its registration,
// or name and age when it declared none.
func declaredPrinter(cols []apiserver.Column) printer {
	if len(cols) == 0 {
		return defaultPrinter
	}
	p := printer{columns: make([]column, len(cols))}
	for i, c := range cols {
		p.columns[i] = col(c.Name, c.Type, c.Description, c.Priority)
	}
	p.cells = func(o api.Object, now time.Time) []any {
		m := o.GetObjectMeta()
		cells := make([]any, len(cols))
		for i, c := range cols {
			switch {
			case c.Cell != nil:
				cells[i] = c.Cell(o)
				switch v := cells[i].(type) {
				case api.Time: // a custom date column: its age
					cells[i] = age(v, now)
				case time.Duration: // a duration, as kubectl prints one
					cells[i] = humanDuration(v)
				}
			case c.Name == "Name":
				cells[i] = m.Name
			case c.Name == "Age":
				cells[i] = age(m.CreationTimestamp, now)
			}
		}
		return cells
	}
	return p
}

// tableOf prints objects as a Table; withColumns false leaves the column
// definitions out (watch events after the first).
func (h *Handler) tableOf(info apiserver.ResourceInfo, objs []api.Object, out output, meta api.ListMeta, withColumns bool) (*table, error) {
	p, ok := printers[info.GroupResource()]
	if !ok {
		p = declaredPrinter(info.Columns)
	}
	t := &table{Kind: "Table", APIVersion: "meta.k8s.io/" + out.tableVersion, Metadata: meta, Rows: make([]row, 0, len(objs))}
	if t.APIVersion == "meta.k8s.io/" {
		t.APIVersion = "meta.k8s.io/v1"
	}
	if withColumns {
		t.ColumnDefinitions = p.columns
	} else {
		t.ColumnDefinitions = []column{}
	}
	now := h.clock.Now()
	for _, obj := range objs {
		r := row{Cells: p.cells(obj, now)}
		switch out.includeObject {
		case "Object":
			r.Object = withTypeMeta(info, obj)
		case "None":
		default:
			r.Object = partialOf(obj, "v1")
		}
		t.Rows = append(t.Rows, r)
	}
	return t, nil
}
