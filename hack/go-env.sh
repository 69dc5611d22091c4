# Sourced by the scripts that run Go. Our modules need Go >= 1.26: use the
# installed toolchain when it is new enough, otherwise let the go command
# fetch go1.26.8 through the Go module proxy (a fresh Debian 12 only has an
# older Go from bookworm-backports; hack/deps.sh installs it).
if go version 2>/dev/null | grep -qE 'go1\.(2[6-9]|[3-9][0-9])'; then
  export GOTOOLCHAIN=local
else
  export GOTOOLCHAIN=go1.26.8
fi
