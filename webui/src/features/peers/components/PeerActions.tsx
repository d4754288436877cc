/** A peer's actions: download its config, show it as a QR code, and the menu of docs/contract.md#peers-page. */
import { ActionIcon, Group, Menu, Tooltip } from '@mantine/core';
import {
  IconDots,
  IconDownload,
  IconFileText,
  IconInfoCircle,
  IconLink,
  IconPencil,
  IconQrcode,
  IconRefresh,
  IconServer,
} from '@tabler/icons-react';
import { useState } from 'react';
import type { Peer } from '../api/peers';

export type PeerMenuAction = 'regenerate_token' | 'regenerate' | 'change_server' | 'details' | 'rename' | 'config_text';

interface Props {
  peer: Peer;
  busy: boolean;
  onDownload: (peer: Peer) => Promise<void>;
  onShowQr: (peer: Peer) => void;
  onAction: (action: PeerMenuAction, peer: Peer) => void;
}

export function PeerActions({ peer, busy, onDownload, onShowQr, onAction }: Props) {
  const [downloading, setDownloading] = useState(false);
  const download = async () => {
    setDownloading(true);
    try {
      await onDownload(peer);
    } finally {
      setDownloading(false);
    }
  };

  return (
    <Group gap={4} wrap="nowrap">
      <Tooltip label="Descargar configuración" withArrow>
        <ActionIcon
          variant="light"
          aria-label="Descargar configuración"
          loading={downloading}
          disabled={busy}
          onClick={() => void download()}
        >
          <IconDownload size={16} />
        </ActionIcon>
      </Tooltip>
      <Tooltip label="Código QR" withArrow>
        <ActionIcon variant="light" aria-label="Código QR" disabled={busy} onClick={() => onShowQr(peer)}>
          <IconQrcode size={16} />
        </ActionIcon>
      </Tooltip>
      <Menu position="bottom-end" withinPortal>
        <Menu.Target>
          <ActionIcon variant="subtle" color="gray" aria-label="Más acciones" disabled={busy}>
            <IconDots size={16} />
          </ActionIcon>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Item leftSection={<IconLink size={14} />} onClick={() => onAction('regenerate_token', peer)}>
            Regenerar Mirror Link
          </Menu.Item>
          <Menu.Item leftSection={<IconRefresh size={14} />} onClick={() => onAction('regenerate', peer)}>
            Regenerar Peer
          </Menu.Item>
          <Menu.Item leftSection={<IconServer size={14} />} onClick={() => onAction('change_server', peer)}>
            Cambiar Servidor
          </Menu.Item>
          <Menu.Item leftSection={<IconInfoCircle size={14} />} onClick={() => onAction('details', peer)}>
            Detalles
          </Menu.Item>
          <Menu.Item leftSection={<IconPencil size={14} />} onClick={() => onAction('rename', peer)}>
            Renombrar
          </Menu.Item>
          <Menu.Item leftSection={<IconFileText size={14} />} onClick={() => onAction('config_text', peer)}>
            Ver configuración
          </Menu.Item>
        </Menu.Dropdown>
      </Menu>
    </Group>
  );
}
