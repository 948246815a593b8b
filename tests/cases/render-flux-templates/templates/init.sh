#!/bin/sh
# a short stand-in for the Flux init template, for trainer's tests
root=%s
first=%s
hosts="%s"
cat > /mnt/flux/broker.toml <<'END'
%sEND
