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
