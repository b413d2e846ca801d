module github.com/nginxtune/nginxtune

go 1.26

require (
	github.com/spf13/cobra v1.10.2
	github.com/tufanbarisyildirim/gonginx v0.0.0-20260220081509-8e17ce617db3
)

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
)
