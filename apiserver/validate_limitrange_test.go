package apiserver

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

func TestDefaultLimitRange(t *testing.T) {
	lr := &api.LimitRange{Spec: api.LimitRangeSpec{Limits: []api.LimitRangeItem{
		{Type: api.LimitTypeContainer, Max: api.ResourceList{"cpu": "2", "memory": "1Gi"}, Min: api.ResourceList{"cpu": "100m"},
			Default: api.ResourceList{"memory": "512Mi"}},
		{Type: api.LimitTypePod, Max: api.ResourceList{"cpu": "4"}},
	}}}
	defaultLimitRange(lr)
	c := lr.Spec.Limits[0]
	assert.Equal(t, api.ResourceList{"cpu": "2", "memory": "512Mi"}, c.Default, "the default limit is the max where unset")
	assert.Equal(t, api.ResourceList{"cpu": "2", "memory": "512Mi"}, c.DefaultRequest, "the default request is the default limit")
	assert.Nil(t, lr.Spec.Limits[1].Default, "only Container limits are defaulted")
}

// The cases of Kubernetes' TestValidateLimitRange.
func TestValidateLimitRange(t *testing.T) {
	const p = "spec.limits[0]."
	for _, tc := range []struct {
		name   string
		limits []api.LimitRangeItem
		want   string
		causes []cause
	}{
		{name: "valid", limits: []api.LimitRangeItem{
			{Type: api.LimitTypePod, Max: api.ResourceList{"cpu": "100m", "memory": "10000"}, Min: api.ResourceList{"cpu": "5m", "memory": "100"},
				MaxLimitRequestRatio: api.ResourceList{"cpu": "10"}},
			{Type: api.LimitTypeContainer, Max: api.ResourceList{"cpu": "100m"}, Min: api.ResourceList{"cpu": "5m"},
				Default: api.ResourceList{"cpu": "50m"}, DefaultRequest: api.ResourceList{"cpu": "10m"}},
			{Type: api.LimitTypePersistentVolumeClaim, Max: api.ResourceList{"storage": "10Gi"}, Min: api.ResourceList{"storage": "1Gi"}},
		}},
		{name: "duplicate type", limits: []api.LimitRangeItem{{Type: api.LimitTypePod}, {Type: api.LimitTypePod}},
			want: `spec.limits[1].type: Duplicate value: "Pod"`, causes: []cause{{duplicate, "spec.limits[1].type"}}},
		{name: "unknown type", limits: []api.LimitRangeItem{{Type: "Volume"}},
			want: p + `type: Invalid value: "Volume": must be a standard limit type or fully qualified`, causes: []cause{{invalid, p + "type"}}},
		{name: "default on a Pod", limits: []api.LimitRangeItem{{Type: api.LimitTypePod, Default: api.ResourceList{"cpu": "1"}}},
			want: p + "default: Forbidden: may not be specified when `type` is 'Pod'", causes: []cause{{forbidden, p + "default"}}},
		{name: "claim without storage bound", limits: []api.LimitRangeItem{{Type: api.LimitTypePersistentVolumeClaim}},
			want: p + "limits: Required value: either minimum or maximum storage value is required, but neither was provided", causes: []cause{{required, p + "limits"}}},
		{name: "min above max", limits: []api.LimitRangeItem{{Type: api.LimitTypePod, Max: api.ResourceList{"cpu": "1"}, Min: api.ResourceList{"cpu": "2"}}},
			want: p + `min[cpu]: Invalid value: "2": min value 2 is greater than max value 1`, causes: []cause{{invalid, p + "min[cpu]"}}},
		{name: "default above max", limits: []api.LimitRangeItem{{Type: api.LimitTypeContainer, Max: api.ResourceList{"cpu": "1"}, Default: api.ResourceList{"cpu": "2"}, DefaultRequest: api.ResourceList{"cpu": "1"}}},
			want: p + `default[cpu]: Invalid value: "1": default value 2 is greater than max value 1`, causes: []cause{{invalid, p + "default[cpu]"}}},
		{name: "default request above default", limits: []api.LimitRangeItem{{Type: api.LimitTypeContainer, Default: api.ResourceList{"cpu": "1"}, DefaultRequest: api.ResourceList{"cpu": "2"}}},
			want: p + `defaultRequest[cpu]: Invalid value: "2": default request value 2 is greater than default limit value 1`, causes: []cause{{invalid, p + "defaultRequest[cpu]"}}},
		{name: "ratio below 1", limits: []api.LimitRangeItem{{Type: api.LimitTypePod, MaxLimitRequestRatio: api.ResourceList{"cpu": "800m"}}},
			want: p + `maxLimitRequestRatio[cpu]: Invalid value: "800m": ratio 800m is less than 1`, causes: []cause{{invalid, p + "maxLimitRequestRatio[cpu]"}}},
		{name: "ratio above max/min", limits: []api.LimitRangeItem{{Type: api.LimitTypePod, Max: api.ResourceList{"cpu": "2"}, Min: api.ResourceList{"cpu": "1"}, MaxLimitRequestRatio: api.ResourceList{"cpu": "3"}}},
			want: p + `maxLimitRequestRatio[cpu]: Invalid value: "3": ratio 3 is greater than max/min = 2.000000`, causes: []cause{{invalid, p + "maxLimitRequestRatio[cpu]"}}},
		{name: "storage on a container", limits: []api.LimitRangeItem{{Type: api.LimitTypeContainer, Max: api.ResourceList{"storage": "1Gi"}}},
			want: p + `max[storage]: Invalid value: "storage": must be a standard resource for containers`, causes: []cause{{invalid, p + "max[storage]"}, {invalid, p + "default[storage]"}, {invalid, p + "defaultRequest[storage]"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lr := &api.LimitRange{Metadata: api.ObjectMeta{Name: "limits", Namespace: "default"}, Spec: api.LimitRangeSpec{Limits: tc.limits}}
			defaultLimitRange(lr)
			errs := validateLimitRange(lr)
			if len(tc.causes) > 1 {
				assert.Len(t, errs, len(tc.causes))
				assert.Equal(t, tc.want, errs[0].Error())
				return
			}
			assertErrors(t, errs, tc.want, tc.causes)
		})
	}
}
