{{/* Named from the release, like the base chart's objects. */}}
{{- define "wrapper.name" -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end }}
