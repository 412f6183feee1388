#!/usr/bin/env bash
# Makes a Debian 13 (trixie) base image from Debian's package mirror with debootstrap, for machines that reach Debian's
# packages but no image registry (this project's CI): the same minimal system as Debian's trixie-slim image.
# Usage: bash scripts/container/debian-base.sh [IMAGE]   (default localhost/brain-debian:trixie; podman, as root)
# Prints the image's name on its last line; an image of that name already present is kept.
set -euo pipefail
image="${1:-localhost/brain-debian:trixie}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
if podman image exists "$image"; then echo "$image"; exit 0; fi
command -v debootstrap >/dev/null || { echo "debian-base: debootstrap is missing (apt-get install debootstrap)" >&2; exit 1; }
rootfs="$(mktemp -d "${TMPDIR:-/tmp}/brain-rootfs.XXXXXX")"
trap 'rm -rf "$rootfs"' EXIT
debootstrap --variant=minbase trixie "$rootfs" "$mirror" >"$rootfs.log" 2>&1 \
  || { tail -n 20 "$rootfs.log" >&2; rm -f "$rootfs.log"; echo "debian-base: debootstrap failed" >&2; exit 1; }
rm -f "$rootfs.log"
# What Debian's slim images leave out: downloaded packages, package lists, logs.
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/*.log
tar -C "$rootfs" --numeric-owner -c . | podman import --quiet --change 'CMD ["/bin/bash"]' - "$image" >/dev/null
echo "$image"
