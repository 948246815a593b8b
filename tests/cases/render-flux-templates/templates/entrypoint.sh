#!/bin/sh
# a short stand-in for the Flux entrypoint template, for trainer's tests
echo "resources: %s"
echo "lead broker: %s"
echo "run flags (100%% of them): %s"
exec "$@"
