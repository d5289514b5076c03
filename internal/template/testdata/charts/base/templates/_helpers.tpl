{{- define "cluster.name" -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "dockermachinetemplate.controlplane.name" -}}
{{- include "cluster.name" . }}-cp-mt
{{- end }}

{{- define "dockermachinetemplate.worker.name" -}}
{{- include "cluster.name" . }}-worker-mt
{{- end }}

{{- define "kubeadmcontrolplane.name" -}}
{{- include "cluster.name" . }}-cp
{{- end }}

{{- define "kubeadmconfigtemplate.worker.name" -}}
{{- include "cluster.name" . }}-worker
{{- end }}

{{- define "machinedeployment.name" -}}
{{- include "cluster.name" . }}-md
{{- end }}
