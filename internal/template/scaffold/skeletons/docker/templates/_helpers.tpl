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

{{/* The node image: machineImage, else kindest/node from the global registry. */}}
{{- define "cluster.machineImage" -}}
{{- if .Values.machineImage -}}
{{- .Values.machineImage -}}
{{- else -}}
{{- $registry := (.Values.global | default dict).registry | default "docker.io" -}}
{{- printf "%s/kindest/node:%s" $registry .Values.kubernetes.version -}}
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
