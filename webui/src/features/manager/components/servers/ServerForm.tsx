/** Creating or editing a server; the tunnel subnet only when creating (it cannot change later). */
import { Button, Group, NumberInput, Stack, Switch, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import type { FieldErrors } from '../../hooks/use-action';
import { serverFormErrors, type ServerFormValues } from './server-form-values';

export function ServerForm({
  initial,
  creating,
  busy,
  onSubmit,
  onCancel,
  refused = {},
  onEdited,
}: {
  initial: ServerFormValues;
  creating: boolean;
  busy: boolean;
  onSubmit: (values: ServerFormValues) => void;
  onCancel: () => void;
  /** What the server refused, by field (its 422's `fields`), shown under the inputs. */
  refused?: FieldErrors;
  onEdited?: (field: string) => void;
}) {
  const [values, setValues] = useState(initial);
  const [checked, setChecked] = useState(false);
  const set = <K extends keyof ServerFormValues>(key: K, value: ServerFormValues[K]) => {
    setValues((v) => ({ ...v, [key]: value }));
    onEdited?.(key);
  };
  // The form's own checks first (they see the value being typed); then the server's word on the one it was sent.
  const errors: FieldErrors = { ...refused, ...(checked ? serverFormErrors(values) : {}) };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setChecked(true);
    if (Object.keys(serverFormErrors(values)).length > 0) return;
    onSubmit({ ...values, address: values.address.trim(), dns: values.dns.trim(), backbone_endpoint: values.backbone_endpoint.trim() });
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        <TextInput label="Nombre" required value={values.name} error={errors.name} onChange={(e) => set('name', e.currentTarget.value)} />
        <TextInput
          label="Dirección pública (host o IP que marcan los clientes)"
          required
          value={values.address}
          error={errors.address}
          onChange={(e) => set('address', e.currentTarget.value)}
        />
        <Group grow>
          <NumberInput label="Puerto UDP" min={1} max={65535} value={values.port} error={errors.port} onChange={(v) => set('port', Number(v))} />
          <NumberInput label="Capacidad (peers)" min={1} value={values.capacity} error={errors.capacity} onChange={(v) => set('capacity', Number(v))} />
        </Group>
        {creating && (
          <TextInput
            label="Subred del túnel"
            description="No se puede cambiar después, p. ej. 10.8.0.0/24"
            required
            value={values.tunnel_subnet}
            error={errors.tunnel_subnet}
            onChange={(e) => set('tunnel_subnet', e.currentTarget.value)}
          />
        )}
        <Group grow align="flex-start">
          <TextInput label="Ubicación" value={values.ubication} error={errors.ubication} onChange={(e) => set('ubication', e.currentTarget.value)} />
          <TextInput
            label="DNS"
            description="IP separadas por comas; dominios de búsqueda opcionales"
            value={values.dns}
            error={errors.dns}
            onChange={(e) => set('dns', e.currentTarget.value)}
          />
        </Group>
        <Switch label="Habilitado para peers nuevos" checked={values.active} onChange={(e) => set('active', e.currentTarget.checked)} />
        <Switch label="Permite salas" checked={values.allow_partys} onChange={(e) => set('allow_partys', e.currentTarget.checked)} />
        <Group grow align="flex-start">
          <TextInput
            label="Endpoint del backbone"
            description="Host o IP que marcan los otros servidores para las salas; vacío: la dirección pública"
            placeholder={values.address || 'la dirección pública'}
            value={values.backbone_endpoint}
            error={errors.backbone_endpoint}
            onChange={(e) => set('backbone_endpoint', e.currentTarget.value)}
          />
          <NumberInput
            label="Puerto UDP del backbone"
            description="Red 10.255.0.0/16 entre servidores; distinto del puerto de los clientes"
            min={1}
            max={65535}
            value={values.backbone_port}
            error={errors.backbone_port}
            onChange={(v) => set('backbone_port', Number(v))}
          />
        </Group>
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            Cancelar
          </Button>
          <Button type="submit" loading={busy}>
            {creating ? 'Crear servidor' : 'Guardar'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
