/** The rooms' generic confirmation ('Confirmar Acción'): Cancelar, and Confirmar reading 'Procesando...' while busy. */
import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useState, type ReactNode } from 'react';

interface Props {
  children: ReactNode;
  /** The dialog closes itself once this settles. */
  onConfirm: () => Promise<unknown>;
  onClose: () => void;
}

export function ConfirmActionDialog({ children, onConfirm, onClose }: Props) {
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
    <Modal opened onClose={() => !working && onClose()} title="Confirmar Acción" centered>
      <Stack>
        <Text size="sm" component="div">
          {children}
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose} disabled={working}>
            Cancelar
          </Button>
          <Button color="red" onClick={() => void confirm()} disabled={working}>
            {working ? 'Procesando...' : 'Confirmar'}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
