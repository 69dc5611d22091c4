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
kustomize base's rbac/role.yaml (hack/chart-test.sh compares them). The
writes of the four optional features are not here: attune.features below.
*/}}
{{- define "attune.namespacedRules" -}}
# The pod informer (every feature), and the executor's bookkeeping annotations
# on pods (original values, restart counts, the startup boost).
- apiGroups: [""]
  resources: [pods]
  verbs: [get, list, patch, update, watch]
# The executor: every in-place resize goes through pods/resize, and only there.
- apiGroups: [""]
  resources: [pods/resize]
  verbs: [patch, update]
# The executor's gates (LimitRange bounds, ResourceQuota room) and Prometheus
# discovery by well-known Service.
- apiGroups: [""]
  resources: [limitranges, resourcequotas, services]
  verbs: [get, list, watch]
# Workload selection and pod ownership (the informers).
- apiGroups: [apps]
  resources: [daemonsets, replicasets]
  verbs: [get, list, watch]
# Workload selection (the informers). Template persistence's patch and update
# are in its own role (rbac.features.templatePersistence).
- apiGroups: [apps]
  resources: [deployments, statefulsets]
  verbs: [get, list, watch]
# Workload selection (the informers).
- apiGroups: [batch]
  resources: [cronjobs, jobs]
  verbs: [get, list, watch]
# The HPA informer: the HPA conflict check and ScaledToZero. The HPA retune's
# patch and update are in its own role (rbac.features.hpaRetune).
- apiGroups: [autoscaling]
  resources: [horizontalpodautoscalers]
  verbs: [get, list, watch]
# The VPA recommendation source.
- apiGroups: [autoscaling.k8s.io]
  resources: [verticalpodautoscalers]
  verbs: [get, list, watch]
# The defaults merge: the namespace tier.
- apiGroups: [attune.io]
  resources: [attunenamespacedefaults]
  verbs: [get, list, watch]
# The policy informer and the controller's patches of its policies.
- apiGroups: [attune.io]
  resources: [attunepolicies]
  verbs: [get, list, patch, watch]
# Owner references on objects the manager creates for a policy (the Go
# manager's rule; the export ConfigMaps carry one, without blockOwnerDeletion).
- apiGroups: [attune.io]
  resources: [attunepolicies/finalizers]
  verbs: [update]
# The status aggregator: recommendations, conditions, history. The status
# subresource is written with a merge patch.
- apiGroups: [attune.io]
  resources: [attunepolicies/status]
  verbs: [get, patch, update]
# Every Event the manager sends on policies and workloads.
- apiGroups: [events.k8s.io]
  resources: [events]
  verbs: [create, get, list, patch, watch]
# Prometheus auto-discovery (Prometheus Operator objects).
- apiGroups: [monitoring.coreos.com]
  resources: [prometheuses]
  verbs: [get, list]
{{- end }}

{{- define "attune.clusterRules" -}}
# Cluster-scoped reads: node capacity and pressure (the executor's gates, the
# capability probe), namespaces for the informer (opt-outs, freezes, the
# initial-sizing label).
- apiGroups: [""]
  resources: [nodes, namespaces]
  verbs: [get, list, watch]
# The defaults merge: the cluster tier.
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

{{/*
The optional features whose writes have a role of their own, as the
kustomize base's rbac/features.yaml: [value under rbac.features, name
suffix]. Each enabled one renders "<fullname>-manager-<suffix>": a
ClusterRole and ClusterRoleBinding, or with watchNamespaces a Role and
RoleBinding in each watched namespace (all four are namespaced rules).
*/}}
{{- define "attune.features" -}}
[["eviction", "eviction"], ["templatePersistence", "template-persistence"], ["hpaRetune", "hpa-retune"], ["configMapExport", "configmap-export"]]
{{- end }}

{{/* updateStrategy.resizeMethod: InPlaceOrRecreate evicts a pod the node
cannot resize in place, through the Eviction API (PodDisruptionBudgets hold). */}}
{{- define "attune.featureRules.eviction" -}}
- apiGroups: [""]
  resources: [pods/eviction]
  verbs: [create]
{{- end }}

{{/* updateStrategy.templatePersistence patches the pod template of a
Deployment or StatefulSet with the applied size (reads are in the core rules). */}}
{{- define "attune.featureRules.template-persistence" -}}
- apiGroups: [apps]
  resources: [deployments, statefulsets]
  verbs: [patch, update]
{{- end }}

{{/* The HPA retune: an HPA annotated attune.io/auto-tune gets its targets
patched after a resize (reads are in the core rules). */}}
{{- define "attune.featureRules.hpa-retune" -}}
- apiGroups: [autoscaling]
  resources: [horizontalpodautoscalers]
  verbs: [patch, update]
{{- end }}

{{/* updateStrategy.export.configMap writes a policy's recommendations into a
ConfigMap per workload, and removes it when it is no longer wanted. */}}
{{- define "attune.featureRules.configmap-export" -}}
- apiGroups: [""]
  resources: [configmaps]
  verbs: [create, delete, get, list, patch, update, watch]
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
