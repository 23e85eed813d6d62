package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNetworkingWithKubectl drives the networking.k8s.io kinds with the
// real kubectl against `miniplane serve`: `kubectl create ingressclass`
// and `kubectl create ingress` store them, the default class is filled in
// by DefaultIngressClass admission, `kubectl get` shows kube-apiserver's
// columns, creating an Ingress or NetworkPolicy warns that nothing acts on
// it, and an invalid Ingress is refused with kube-apiserver's message and
// nothing stored.
func TestNetworkingWithKubectl(t *testing.T) {
	k := readyServe(t)

	assert.Contains(t, k.ok("create", "-f", k.file("class.yaml", `apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: nginx
  annotations: {ingressclass.kubernetes.io/is-default-class: "true"}
spec:
  controller: k8s.io/ingress-nginx
  parameters: {apiGroup: k8s.example.com, kind: Params, name: p}
`)), "ingressclass.networking.k8s.io/nginx created")
	assert.Regexp(t, `NAME\s+CONTROLLER\s+PARAMETERS\s+AGE\n`+`nginx\s+k8s.io/ingress-nginx\s+Params.k8s.example.com/p\s`, k.ok("get", "ingressclass"))
	assert.Equal(t, "Cluster", k.get("get", "ingressclass", "nginx", "-o", "jsonpath={.spec.parameters.scope}"), "defaulted by the server")

	out, err := k.run(nil, "create", "ingress", "web", "--rule=foo.example.com/bar*=web:80", "--rule=tls.example.com/=web:https,tls=cert")
	require.NoError(t, err, out)
	assert.Contains(t, out, "ingress.networking.k8s.io/web created")
	assert.Contains(t, out, "Warning: nothing acts on this Ingress: no ingress controller runs here")
	assert.Regexp(t, `NAME\s+CLASS\s+HOSTS\s+ADDRESS\s+PORTS\s+AGE\n`+`web\s+nginx\s+foo.example.com,tls.example.com\s+80, 443\s`, k.ok("get", "ingress"))
	assert.Equal(t, "Prefix /bar", k.get("get", "ing", "web", "-o", "jsonpath={.spec.rules[0].http.paths[0].pathType} {.spec.rules[0].http.paths[0].path}"))

	out, err = k.run(nil, "create", "-f", k.file("netpol.yaml", `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny}
spec:
  podSelector: {matchLabels: {app: web}}
  egress: [{ports: [{port: 53}]}]
`))
	require.NoError(t, err, out)
	assert.Contains(t, out, "Warning: nothing acts on this NetworkPolicy: no network plugin runs here")
	assert.Regexp(t, `NAME\s+POD-SELECTOR\s+AGE\n`+`deny\s+app=web\s`, k.ok("get", "netpol"))
	assert.Equal(t, `["Ingress","Egress"] TCP`, k.get("get", "netpol", "deny", "-o", "jsonpath={.spec.policyTypes} {.spec.egress[0].ports[0].protocol}"))

	out, err = k.run(nil, "create", "-f", k.file("bad.yaml", `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: bad}
spec:
  rules: [{host: 127.0.0.1, http: {paths: [{path: /, backend: {service: {name: web, port: {number: 80}}}}]}}]
`))
	require.Error(t, err)
	assert.Contains(t, out, `The Ingress "bad" is invalid: 
* spec.rules[0].host: Invalid value: "127.0.0.1": must be a DNS name, not an IP address
* spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified`)
	_, err = k.run(nil, "get", "ingress", "bad")
	assert.Error(t, err, "a refused ingress is not stored")
}
