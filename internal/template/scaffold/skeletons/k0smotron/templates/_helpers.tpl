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
