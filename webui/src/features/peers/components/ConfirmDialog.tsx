/** A confirmation dialog with Cancelar and a confirm button that reads 'Procesando...' while the action runs. */
import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useState, type ReactNode } from 'react';

interface Props {
  opened: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  /** The dialog closes itself once this settles. */
  onConfirm: () => Promise<unknown>;
  onClose: () => void;
}

export function ConfirmDialog({ opened, title, children, confirmLabel, onConfirm, onClose }: Props) {
  const [working, setWorking] = useState(false);
  const confirm = async () => {
    setWorking(true);
    try {
      await onConfirm();
    } finally {
      setWorking(false);
      onClose();
    }
  };
  return (
    <Modal opened={opened} onClose={() => !working && onClose()} title={title} centered>
      <Stack>
        <Text size="sm" component="div">
          {children}
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose} disabled={working}>
            Cancelar
          </Button>
          <Button onClick={() => void confirm()} disabled={working}>
            {working ? 'Procesando...' : confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
