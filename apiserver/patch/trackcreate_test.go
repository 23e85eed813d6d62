package patch

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

// TestTrackCreateIsTrackUpdateOfACreate checks the create fast path against
// the general one: the managedFields TrackCreate returns are exactly those
// TrackUpdate(kind, nil, obj, ...) writes into the object, as a typed
// object decodes them — whatever managedFields the client sent.
func TestTrackCreateIsTrackUpdateOfACreate(t *testing.T) {
	tests := []struct {
		name, kind, manager, obj string
	}{
		{"replication controller", "ReplicationController", "kubectl-create", rcApplied},
		{"pod with ports and env", "Pod", "client-go", `{"apiVersion":"v1","kind":"Pod",
		  "metadata":{"name":"web","namespace":"default","labels":{"app":"web"},"annotations":{"a":"b"}},
		  "spec":{"containers":[{"name":"app","image":"nginx","ports":[{"containerPort":80,"protocol":"TCP"}],
		   "env":[{"name":"A","value":"1"}]}],"nodeSelector":{"disk":"ssd"}}}`},
		{"service", "Service", "kubectl", `{"apiVersion":"v1","kind":"Service",
		  "metadata":{"name":"web","namespace":"default"},
		  "spec":{"selector":{"app":"web"},"ports":[{"port":80,"targetPort":8080}]}}`},
		{"client-sent managedFields are replaced", "ConfigMap", "me", `{"apiVersion":"v1","kind":"ConfigMap",
		  "metadata":{"name":"c","namespace":"default","managedFields":[{"manager":"liar","operation":"Update",
		   "fieldsType":"FieldsV1","fieldsV1":{"f:data":{}}}]},"data":{"k":"v"}}`},
		{"no manager", "ConfigMap", "", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"v"}}`},
		{"only server-set fields", "Namespace", "me", `{"apiVersion":"v1","kind":"Namespace","metadata":{"uid":"x"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tracked, err := TrackUpdate(tt.kind, nil, []byte(tt.obj), tt.manager, t1)
			require.NoError(t, err)
			var want struct {
				Metadata api.ObjectMeta `json:"metadata"`
			}
			require.NoError(t, json.Unmarshal(tracked, &want))

			got, err := TrackCreate(tt.kind, []byte(tt.obj), tt.manager, t1)
			require.NoError(t, err)
			assert.Equal(t, want.Metadata.ManagedFields, got)
		})
	}
}

func TestTrackCreateRefusesABadManager(t *testing.T) {
	_, err := TrackCreate("Pod", []byte(`{"metadata":{"name":"p"}}`), string(make([]byte, 129)), t1)
	require.Error(t, err)
	_, err = TrackCreate("Pod", []byte(`[1]`), "me", t1)
	require.Error(t, err)
}
