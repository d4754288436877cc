#!/usr/bin/env bash
# Install what the kernel test layer (tests/kernel/run_in_vm.py) needs on a fresh Debian 12 machine.
# Idempotent: installs only missing packages and does nothing (no apt-get update) when all are there.
# virtme-ng itself is a Python dev dependency (pyproject.toml), installed by `uv sync`, not here.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

# qemu-system-x86      runs the VM (software emulation: KVM is absent or unusable on these machines)
# linux-image-amd64    Debian's kernel for the guest; its /lib/modules tree has wireguard.ko
# busybox-static       virtme-ng builds the guest's initramfs from it
# kmod                 modprobe/depmod, on the host (virtme-ng's module lookup) and in the guest
# udev                 virtme-ng's init starts udevd when present (device nodes, module autoload)
# iproute2             `ip netns` / `ip link` in the guest (the guest runs the host's binaries)
# wireguard-tools      `wg`, used by the agent's backend contract suite
PACKAGES=(qemu-system-x86 linux-image-amd64 busybox-static kmod udev iproute2 wireguard-tools)

missing=()
for package in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || missing+=("$package")
done

if ((${#missing[@]})); then
    echo "install-kernel-vm: installing ${missing[*]}"
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The guest kernel must come with WireGuard: fail here, with the reason, rather than in the tests.
if ! compgen -G "/lib/modules/*/kernel/drivers/net/wireguard/wireguard.ko*" >/dev/null; then
    echo "install-kernel-vm: no wireguard.ko under /lib/modules/*; is linux-image-amd64 installed?" >&2
    exit 1
fi
echo "install-kernel-vm: ready ($(ls /boot/vmlinuz-* | tr '\n' ' '))"
