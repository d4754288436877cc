# Servidor {{name}} ({{address}}): como root en un Debian 12 recién instalado.
# Los mismos pasos que docs/deployment.md ("Adding a VPN node"), con los valores de este servidor.
{{demo_notice}}
apt-get update
apt-get install -y --no-install-recommends wireguard-tools nftables python3 python3-venv git ca-certificates iproute2
useradd --system --no-create-home --shell /usr/sbin/nologin vpn-node || true

# El backend de WireGuard: "kernel" (el módulo de Linux, el más rápido) o "userspace" (wireguard-go: contenedores y
# kernels sin el módulo). Vacío: kernel si el módulo carga aquí, si no userspace. Para elegir, escríbalo aquí:
BACKEND=
if [ -z "$BACKEND" ]; then if modprobe wireguard 2>/dev/null; then BACKEND=kernel; else BACKEND=userspace; fi; fi
if [ "$BACKEND" = kernel ]; then
    # El agente no puede cargar módulos: se carga ahora y en cada arranque.
    modprobe wireguard && echo wireguard > /etc/modules-load.d/wireguard.conf
else
    apt-get install -y --no-install-recommends wireguard-go
fi

{{fetch_code}}
python3 -m venv /opt/uv && /opt/uv/bin/pip install --quiet uv
# Solo las dependencias del agente (grupo "node" de pyproject.toml), compiladas: el servicio no puede escribir en
# /opt/vpn-service y sin bytecode compilaría cada módulo en cada arranque (docs/deployment.md, "Bytecode").
cd /opt/vpn-service && /opt/uv/bin/uv sync --frozen --no-dev --only-group node --compile-bytecode
.venv/bin/python -m compileall -q node_agent protos

# La salida a internet (la interfaz de la ruta por defecto): el tráfico de los clientes sale por ella con NAT.
EGRESS=$(ip route show default | sed -n 's/.* dev \([^ ]*\).*/\1/p' | head -n 1)
install -d -m 0750 -g vpn-node /etc/vpn-node
cat > /etc/vpn-node/agent.toml <<'EOF'
control_url = {{control_url}}
node_id = {{node_id}}
credential = {{credential}}
{{tls_ca}}
interface = {{interface}}
state_dir = "/var/lib/vpn-node"
# Métricas de Prometheus del agente, solo en este host (docs/deployment.md, "Observability").
metrics_bind = "127.0.0.1:9586"
EOF
printf 'backend = "%s"\negress_interface = "%s"\n' "$BACKEND" "$EGRESS" >> /etc/vpn-node/agent.toml
chown root:vpn-node /etc/vpn-node/agent.toml && chmod 0640 /etc/vpn-node/agent.toml
{{tls_ca_file}}
echo 'net.ipv4.ip_forward = 1' > /etc/sysctl.d/90-vpn-node.conf && sysctl -q -p /etc/sysctl.d/90-vpn-node.conf

install -m 0644 packaging/vpn-node-agent.service /etc/systemd/system/
systemctl daemon-reload && systemctl enable --now vpn-node-agent
sleep 5; journalctl -u vpn-node-agent -n 20 --no-pager   # "full state N applied in ... ms"
wg show
# Abra {{port}}/udp en el cortafuegos: los clientes se conectan a {{endpoint}}.
{{rooms}}
# En la página Servidores el nodo pasa a 'En línea' en unos segundos.
