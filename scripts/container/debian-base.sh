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
debootstrap --variant=minbase trixie "$rootfs" "$mirror" >&2
# What Debian's slim images leave out: downloaded packages, package lists, logs.
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/*.log
tar -C "$rootfs" --numeric-owner -c . | podman import --change 'CMD ["/bin/bash"]' - "$image" >&2
echo "$image"
