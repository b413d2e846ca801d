#!/bin/sh
# Moves callers of internal/config to package lint, which now reads
# .nginxtune.yaml (lint/config.go): config.File is lint.ConfigFile,
# config.Find lint.FindConfig, config.Load lint.LoadConfig, config.LoadFound
# lint.LoadFoundConfig, config.Name lint.ConfigName, config.Override
# lint.ConfigOverride, config.MaxSize lint.MaxConfigSize; ParseFailOn and
# FailNone keep their names. Comments that cite them are moved too.
# Idempotent: a second run changes nothing. Run from anywhere in the repo.
set -eu
cd "$(git rev-parse --show-toplevel)"
files=$(grep -rlE '"github.com/nginxtune/nginxtune/internal/config"|\bconfig\.(LoadFound|Find|Load|File|Name|Override|MaxSize|ParseFailOn|FailNone)\b' --include='*.go' . | grep -v '^\./lint/' || true)
for f in $files; do
	sed -i -E \
		-e 's#"github.com/nginxtune/nginxtune/internal/config"#"github.com/nginxtune/nginxtune/lint"#' \
		-e 's/\bconfig\.LoadFound\b/lint.LoadFoundConfig/g' \
		-e 's/\bconfig\.Load\b/lint.LoadConfig/g' \
		-e 's/\bconfig\.Find\b/lint.FindConfig/g' \
		-e 's/\bconfig\.File\b/lint.ConfigFile/g' \
		-e 's/\bconfig\.Name\b/lint.ConfigName/g' \
		-e 's/\bconfig\.Override\b/lint.ConfigOverride/g' \
		-e 's/\bconfig\.MaxSize\b/lint.MaxConfigSize/g' \
		-e 's/\bconfig\.(ParseFailOn|FailNone)\b/lint.\1/g' \
		"$f"
	go tool goimports -w -local github.com/nginxtune/nginxtune "$f"
done
