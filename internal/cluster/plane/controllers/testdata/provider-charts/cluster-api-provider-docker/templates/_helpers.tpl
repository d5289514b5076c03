{{- define "provider.deployment.default" -}}
{{- $global := .Values.global | default dict -}}
{{- $version := .Chart.AppVersion -}}
{{- $container := dict "name" "manager" -}}
{{- if $global.registry }}
{{- $_ := set $container "imageUrl" (printf "%s/capi/capd-manager:%s" $global.registry $version) -}}
{{- end }}
{{- end }}
