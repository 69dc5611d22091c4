{{/* The chart name, or nameOverride: the app.kubernetes.io/name label. */}}
{{- define "attune.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The base of every object name: the release name when it already says
"attune" (release attune -> attune-manager, as the kustomize base names it). */}}
{{- define "attune.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "attune.manager" -}}{{ include "attune.fullname" . }}-manager{{- end }}
{{- define "attune.webhook" -}}{{ include "attune.fullname" . }}-webhook{{- end }}
{{- define "attune.webhookSecret" -}}{{ include "attune.fullname" . }}-webhook-tls{{- end }}

{{- define "attune.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "attune.manager" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* Labels of every object. */}}
{{- define "attune.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "attune.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* The manager pods' selector (Deployment, Services, PDB, NetworkPolicy). */}}
{{- define "attune.selectorLabels" -}}
app.kubernetes.io/name: {{ include "attune.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: manager
{{- end }}

{{- define "attune.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{- define "attune.subject" -}}
- kind: ServiceAccount
  name: {{ include "attune.serviceAccountName" . }}
  namespace: {{ .Release.Namespace }}
{{- end }}

{{/*
The manager's RBAC (docs/manager.md, RBAC), split by scope so that
with watchNamespaces the namespaced part becomes a Role in each namespace.
Without watchNamespaces both parts form one ClusterRole, rule for rule the
kustomize base's rbac/role.yaml (hack/chart-test.sh compares them).
*/}}
{{- define "attune.namespacedRules" -}}
# Export ConfigMaps (updateStrategy.export.configMap).
- apiGroups: [""]
  resources: [configmaps]
  verbs: [create, delete, get, list, patch, update, watch]
# Pods: the informer, bookkeeping annotations; resizes only through pods/resize.
- apiGroups: [""]
  resources: [pods]
  verbs: [get, list, patch, update, watch]
- apiGroups: [""]
  resources: [pods/eviction]
  verbs: [create]
- apiGroups: [""]
  resources: [pods/resize]
  verbs: [patch, update]
# Capacity, quota and Prometheus discovery reads.
- apiGroups: [""]
  resources: [limitranges, resourcequotas, services]
  verbs: [get, list, watch]
- apiGroups: [apps]
  resources: [daemonsets, replicasets]
  verbs: [get, list, watch]
# Deployments and StatefulSets: templatePersistence patches their templates.
- apiGroups: [apps]
  resources: [deployments, statefulsets]
  verbs: [get, list, patch, update, watch]
- apiGroups: [batch]
  resources: [cronjobs, jobs]
  verbs: [get, list, watch]
- apiGroups: [autoscaling]
  resources: [horizontalpodautoscalers]
  verbs: [get, list, patch, update, watch]
- apiGroups: [autoscaling.k8s.io]
  resources: [verticalpodautoscalers]
  verbs: [get, list, watch]
- apiGroups: [attune.io]
  resources: [attunenamespacedefaults]
  verbs: [get, list, watch]
- apiGroups: [attune.io]
  resources: [attunepolicies]
  verbs: [get, list, patch, watch]
- apiGroups: [attune.io]
  resources: [attunepolicies/finalizers]
  verbs: [update]
# The status subresource is written with a merge patch.
- apiGroups: [attune.io]
  resources: [attunepolicies/status]
  verbs: [get, patch, update]
- apiGroups: [events.k8s.io]
  resources: [events]
  verbs: [create, get, list, patch, watch]
# Prometheus auto-discovery (Prometheus Operator objects).
- apiGroups: [monitoring.coreos.com]
  resources: [prometheuses]
  verbs: [get, list]
{{- end }}

{{- define "attune.clusterRules" -}}
# Cluster-scoped reads: node capacity, namespaces for the informer
# (initial-sizing label), the cluster-wide defaults.
- apiGroups: [""]
  resources: [nodes, namespaces]
  verbs: [get, list, watch]
- apiGroups: [attune.io]
  resources: [attunedefaults]
  verbs: [get, list, watch]
{{- if .Values.metrics.secure }}
# Secure metrics (--metrics-secure, the default): /metrics checks each
# scraper's bearer token with a TokenReview and its right to get /metrics
# with a SubjectAccessReview.
- apiGroups: [authentication.k8s.io]
  resources: [tokenreviews]
  verbs: [create]
- apiGroups: [authorization.k8s.io]
  resources: [subjectaccessreviews]
  verbs: [create]
{{- end }}
{{- end }}

{{/* The manager's arguments, in the kustomize base's order. */}}
{{- define "attune.args" -}}
{{- if .Values.leaderElection.enabled }}
- --leader-elect
- --leader-election-id={{ include "attune.manager" . }}
{{- end }}
- --metrics-bind-address=0.0.0.0:{{ .Values.metrics.port }}
{{- if not .Values.metrics.secure }}
- --metrics-secure=false
{{- end }}
{{- with .Values.metrics.certDir }}
- --metrics-cert-dir={{ . }}
{{- end }}
- --health-probe-bind-address=0.0.0.0:{{ .Values.healthProbePort }}
- --log-format={{ .Values.logging.format }}
- --log-level={{ .Values.logging.level }}
- --kube-qps={{ .Values.kubeQPS }}
- --kube-burst={{ .Values.kubeBurst }}
- --workers={{ .Values.maxConcurrentReconciles }}
{{- if .Values.watchNamespaces }}
- --watch-namespaces={{ join "," .Values.watchNamespaces }}
{{- end }}
{{- if .Values.prometheusQueryTimeout }}
- --prometheus-query-timeout={{ .Values.prometheusQueryTimeout }}
{{- end }}
{{- if .Values.allowSecretReads }}
- --allow-secret-reads
{{- end }}
{{- if .Values.allowLocalMetricsAddresses }}
- --allow-local-metrics-addresses
{{- end }}
{{- if .Values.watchList }}
- --watch-list=true
{{- end }}
{{- if not .Values.protobufLists }}
- --protobuf-lists=false
{{- end }}
{{- if .Values.initialSizing.enabled }}
- --webhook
- --webhook-bind-address=0.0.0.0:{{ .Values.initialSizing.port }}
- --webhook-secret-name={{ include "attune.webhookSecret" . }}
- --webhook-configuration-name={{ include "attune.webhook" . }}
- --webhook-service-name={{ include "attune.webhook" . }}
{{- if .Values.initialSizing.certManager.enabled }}
- --webhook-cert-dir=/var/run/attune/webhook-certs
{{- end }}
{{- end }}
{{- range .Values.extraArgs }}
- {{ . | quote }}
{{- end }}
{{- end }}
