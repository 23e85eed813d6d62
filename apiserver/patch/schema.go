package patch

// This file holds the patch metadata of the kinds miniplane serves: for each list field,
// whether a strategic merge patch merges it and by which key. It mirrors the
// patchStrategy and patchMergeKey struct tags of k8s.io/api/core/v1,
// k8s.io/api/coordination/v1 and k8s.io/apimachinery/pkg/apis/meta/v1 (the same
// metadata server-side apply reads from +listType/+listMapKey markers). Fields that are
// not listed have no strategy: maps merge, lists are replaced whole.

// schema describes the fields of one JSON object: the ones that matter for merging. A nil
// *schema is an object whose fields all have no strategy.
type schema struct {
	fields map[string]*fieldMeta
}

// fieldMeta is the patch metadata of one field. elem describes the field's value when it is
// an object, or its elements when it is a list of objects.
type fieldMeta struct {
	// merge is patchStrategy "merge": a list whose elements are merged with the patch's
	// instead of replaced. With mergeKey it is a list of objects identified by that key;
	// without, a set of primitives (finalizers).
	merge    bool
	mergeKey string
	elem     *schema
}

// lookup returns the metadata of field name, or nil when the field has no strategy.
func (s *schema) lookup(name string) *fieldMeta {
	if s == nil {
		return nil
	}
	return s.fields[name]
}

// child returns the schema of field name's value (or elements).
func (s *schema) child(name string) *schema {
	if f := s.lookup(name); f != nil {
		return f.elem
	}
	return nil
}

func object(fields map[string]*fieldMeta) *schema { return &schema{fields: fields} }

// nested is a field without a strategy whose value is an object described by s.
func nested(s *schema) *fieldMeta { return &fieldMeta{elem: s} }

// mergeBy is a list of objects merged by key.
func mergeBy(key string, elem *schema) *fieldMeta {
	return &fieldMeta{merge: true, mergeKey: key, elem: elem}
}

// mergeAsSet is a list of primitives merged as a set.
func mergeAsSet() *fieldMeta { return &fieldMeta{merge: true} }

// schemas returns the root schema of every kind. It builds a fresh table on each call;
// Apply and ServerSideApply call schemaFor, which keeps one.
func schemas() map[string]*schema {
	objectMeta := object(map[string]*fieldMeta{
		"ownerReferences": mergeBy("uid", nil),
		"finalizers":      mergeAsSet(),
	})
	container := object(map[string]*fieldMeta{
		"ports":         mergeBy("containerPort", nil),
		"env":           mergeBy("name", nil),
		"volumeMounts":  mergeBy("mountPath", nil),
		"volumeDevices": mergeBy("devicePath", nil),
	})
	podSpec := object(map[string]*fieldMeta{
		"containers":                mergeBy("name", container),
		"initContainers":            mergeBy("name", container),
		"ephemeralContainers":       mergeBy("name", container),
		"volumes":                   mergeBy("name", nil),
		"imagePullSecrets":          mergeBy("name", nil),
		"hostAliases":               mergeBy("ip", nil),
		"topologySpreadConstraints": mergeBy("topologyKey", nil),
		"schedulingGates":           mergeBy("name", nil),
		"resourceClaims":            mergeBy("name", nil),
	})
	byType := func() *fieldMeta { return mergeBy("type", nil) }
	podStatus := object(map[string]*fieldMeta{
		"conditions": byType(),
		"podIPs":     mergeBy("ip", nil),
		"hostIPs":    mergeBy("ip", nil),
	})
	conditionsOnly := object(map[string]*fieldMeta{"conditions": byType()})
	// A webhook configuration's webhooks and their match conditions merge by name.
	webhooks := object(map[string]*fieldMeta{
		"metadata": nested(objectMeta),
		"webhooks": mergeBy("name", object(map[string]*fieldMeta{"matchConditions": mergeBy("name", nil)})),
	})
	metaOnly := object(map[string]*fieldMeta{"metadata": nested(objectMeta)})
	// replicated is a kind with a pod template and status conditions
	// (apps/v1 Deployment, DaemonSet, ReplicaSet and StatefulSet, batch/v1 Job).
	replicated := object(map[string]*fieldMeta{
		"metadata": nested(objectMeta),
		"spec": nested(object(map[string]*fieldMeta{
			"template": nested(object(map[string]*fieldMeta{
				"metadata": nested(objectMeta),
				"spec":     nested(podSpec),
			})),
		})),
		"status": nested(conditionsOnly),
	})
	return map[string]*schema{
		"Pod": object(map[string]*fieldMeta{
			"metadata": nested(objectMeta),
			"spec":     nested(podSpec),
			"status":   nested(podStatus),
		}),
		"ReplicationController": object(map[string]*fieldMeta{
			"metadata": nested(objectMeta),
			"spec": nested(object(map[string]*fieldMeta{
				"template": nested(object(map[string]*fieldMeta{
					"metadata": nested(objectMeta),
					"spec":     nested(podSpec),
				})),
			})),
			"status": nested(conditionsOnly),
		}),
		"Service": object(map[string]*fieldMeta{
			"metadata": nested(objectMeta),
			"spec":     nested(object(map[string]*fieldMeta{"ports": mergeBy("port", nil)})),
			"status":   nested(conditionsOnly),
		}),
		"Node": object(map[string]*fieldMeta{
			"metadata": nested(objectMeta),
			"spec":     nested(object(map[string]*fieldMeta{"podCIDRs": mergeAsSet()})),
			"status": nested(object(map[string]*fieldMeta{
				"conditions": byType(),
				"addresses":  mergeBy("type", nil),
			})),
		}),
		"Namespace": object(map[string]*fieldMeta{
			"metadata": nested(objectMeta),
			"status":   nested(conditionsOnly),
		}),
		"Endpoints":        metaOnly,
		"EndpointSlice":    metaOnly,
		"Lease":            metaOnly,
		"Event":            metaOnly,
		"Scale":            metaOnly,
		"ConfigMap":        metaOnly,
		"Secret":           metaOnly,
		"ResourceQuota":    metaOnly,
		"PersistentVolume": metaOnly,
		"PersistentVolumeClaim": object(map[string]*fieldMeta{
			"metadata": nested(objectMeta),
			"status":   nested(conditionsOnly),
		}),
		// autoscaling/v2's status conditions merge by type; its metrics
		// are atomic (v1 has neither list).
		"HorizontalPodAutoscaler": object(map[string]*fieldMeta{
			"metadata": nested(objectMeta),
			"status":   nested(conditionsOnly),
		}),
		// An APIService's status conditions merge by type.
		"APIService": object(map[string]*fieldMeta{
			"metadata": nested(objectMeta),
			"status":   nested(conditionsOnly),
		}),
		"StorageClass":       metaOnly,
		"CSIDriver":          metaOnly,
		"CSIStorageCapacity": metaOnly,
		"VolumeAttachment":   metaOnly,
		"PriorityClass":      metaOnly,
		"LimitRange":         metaOnly,
		"PodTemplate": object(map[string]*fieldMeta{
			"metadata": nested(objectMeta),
			"template": nested(object(map[string]*fieldMeta{
				"metadata": nested(objectMeta),
				"spec":     nested(podSpec),
			})),
		}),
		"Role":               metaOnly,
		"RoleBinding":        metaOnly,
		"ClusterRole":        metaOnly,
		"ClusterRoleBinding": metaOnly,
		"CSINode": object(map[string]*fieldMeta{
			"metadata": nested(objectMeta),
			"spec":     nested(object(map[string]*fieldMeta{"drivers": mergeBy("name", nil)})),
		}),
		"PodDisruptionBudget": object(map[string]*fieldMeta{
			"metadata": nested(objectMeta),
			"status":   nested(conditionsOnly),
		}),
		"Deployment": replicated,
		"DaemonSet":  replicated,
		// A revision's data is free JSON, replaced whole.
		"ControllerRevision": metaOnly,
		"ReplicaSet":         replicated,
		"StatefulSet":        replicated,
		"Job":                replicated,
		// A cron job's pod template is one level down, in its job template;
		// status.active is atomic.
		"CronJob": object(map[string]*fieldMeta{
			"metadata": nested(objectMeta),
			"spec": nested(object(map[string]*fieldMeta{
				"jobTemplate": nested(object(map[string]*fieldMeta{
					"metadata": nested(objectMeta),
					"spec": nested(object(map[string]*fieldMeta{
						"template": nested(object(map[string]*fieldMeta{
							"metadata": nested(objectMeta),
							"spec":     nested(podSpec),
						})),
					})),
				})),
			})),
		}),
		"ServiceAccount": object(map[string]*fieldMeta{
			"metadata": nested(objectMeta),
			"secrets":  mergeBy("name", nil),
		}),
		"ValidatingAdmissionPolicy": object(map[string]*fieldMeta{
			"metadata": nested(objectMeta),
			"spec": nested(object(map[string]*fieldMeta{
				"matchConditions": mergeBy("name", nil),
				"variables":       mergeBy("name", nil),
			})),
			"status": nested(conditionsOnly),
		}),
		"ValidatingAdmissionPolicyBinding": metaOnly,
		"ValidatingWebhookConfiguration":   webhooks,
		"MutatingWebhookConfiguration":     webhooks,
	}
}
