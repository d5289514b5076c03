{{- define "encryption.hash" -}}
{{- if .Values.encryption.hash -}}
{{- .Values.encryption.hash -}}
{{- else -}}
{{- $name := .Values.encryption.secretName -}}
{{- if $name -}}
{{- $secret := lookup "v1" "Secret" .Release.Namespace $name -}}
{{- if and $secret $secret.data (hasKey $secret.data "config") -}}
{{- sha256sum (b64dec (index $secret.data "config")) | trunc 8 -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end }}
{{- define "settings.exists" -}}
{{- with lookup "v1" "ConfigMap" .Release.Namespace (printf "%s-settings" .Release.Name) -}}
{{- .data.mode -}}
{{- end -}}
{{- end }}
