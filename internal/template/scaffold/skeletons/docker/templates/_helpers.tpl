{{/* Every object is named from the release: the ClusterDeployment's name. */}}
{{- define "cluster.name" -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end }}

{{- define "cluster.controlPlaneName" -}}
{{- include "cluster.name" . }}-cp
{{- end }}

{{- define "cluster.workerName" -}}
{{- include "cluster.name" . }}-md
{{- end }}

{{/*
An image reference as kcm's global registry asks: with global.registry set,
the reference's own registry (its first part, when that has a "." or a ":"
or is localhost) is replaced by it.
*/}}
{{- define "cluster.fromRegistry" -}}
{{- $ref := index . 0 -}}
{{- $registry := index . 1 -}}
{{- if $registry -}}
{{- $parts := splitList "/" $ref -}}
{{- $first := first $parts -}}
{{- if and (gt (len $parts) 1) (or (contains "." $first) (contains ":" $first) (eq $first "localhost")) -}}
{{- $parts = rest $parts -}}
{{- end -}}
{{- printf "%s/%s" $registry (join "/" $parts) -}}
{{- else -}}
{{- $ref -}}
{{- end -}}
{{- end }}

{{- define "cluster.registry" -}}
{{- (.Values.global | default dict).registry | default "" -}}
{{- end }}

{{/* The node image: machineImage, else kindest/node; from global.registry when set. */}}
{{- define "cluster.machineImage" -}}
{{- $image := .Values.machineImage | default (printf "docker.io/kindest/node:%s" .Values.kubernetes.version) -}}
{{- include "cluster.fromRegistry" (list $image (include "cluster.registry" .)) -}}
{{- end }}

{{/*
The repository of CAPD's load balancer image (REPOSITORY/haproxy:TAG):
loadBalancer.imageRepository, else CAPD's default (kindest, empty here);
under global.registry when set.
*/}}
{{- define "cluster.loadBalancerRepository" -}}
{{- $repo := (.Values.loadBalancer | default dict).imageRepository | default "" -}}
{{- $registry := include "cluster.registry" . -}}
{{- if or $repo $registry -}}
{{- include "cluster.fromRegistry" (list (printf "%s/haproxy" ($repo | default "docker.io/kindest")) $registry) | trimSuffix "/haproxy" -}}
{{- end -}}
{{- end }}

{{/*
The DockerMachineTemplate spec, and the template names. Cluster API machine
templates are immutable: the names carry a hash of the spec, so a change (a
new Kubernetes version means a new node image) creates a new template and
rolls the machines out, where updating the old one would be rejected by
CAPD's webhook and fail the upgrade.
*/}}
{{- define "cluster.machineTemplateSpec" -}}
customImage: {{ include "cluster.machineImage" . }}
{{- end }}

{{- define "cluster.controlPlaneTemplateName" -}}
{{- include "cluster.controlPlaneName" . }}-{{ include "cluster.machineTemplateSpec" . | sha256sum | trunc 8 }}
{{- end }}

{{- define "cluster.workerTemplateName" -}}
{{- include "cluster.workerName" . }}-{{ include "cluster.machineTemplateSpec" . | sha256sum | trunc 8 }}
{{- end }}
