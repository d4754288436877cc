/** /manager/dashboard/plans: the catalogue, hidden plans included; create, edit, hide or show. */
import { Badge, Button, Group, Modal, NumberInput, Stack, Switch, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { LoadingState } from '../../../components/LoadingState';
import { SectionError } from '../../../components/SectionError';
import { errorMessage } from '../../../lib/api';
import { useManagerTitle } from '../manager-title';
import { useRequest } from '../../../lib/use-request';
import { managerApi, type PlanInput, type StaffPlan } from '../api/manager';
import { validity } from '../format';
import { useAction, type FieldErrors } from '../hooks/use-action';
import { useStaff } from '../staff';
import { NameWithActions } from './NameWithActions';
import { RowTable } from './RowTable';

const EMPTY: PlanInput = { name: '', description: '', validity_hours: 720, price: '', visible: true, sort_order: 0, guest_pass: false };

export function PlanForm({
  initial,
  busy,
  onSubmit,
  onCancel,
  refused = {},
  onEdited,
}: {
  initial: PlanInput;
  busy: boolean;
  onSubmit: (v: PlanInput) => void;
  onCancel: () => void;
  /** What the server refused, by field (its 422's `fields`), shown under the inputs. */
  refused?: FieldErrors;
  onEdited?: (field: string) => void;
}) {
  const [values, setState] = useState(initial);
  const [days, setDaysState] = useState<number>(initial.validity_hours / 24);
  const setValues = (next: PlanInput) => {
    for (const key of Object.keys(next) as (keyof PlanInput)[]) if (next[key] !== values[key]) onEdited?.(key);
    setState(next);
  };
  const setDays = (next: number) => {
    onEdited?.('validity_hours');
    setDaysState(next);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit({ ...values, validity_hours: Math.round(days * 24) });
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        <TextInput label="Nombre" required value={values.name} error={refused.name} onChange={(e) => setValues({ ...values, name: e.currentTarget.value })} />
        <Group grow>
          <NumberInput label="Validez (días)" min={1} decimalScale={2} value={days} error={refused.validity_hours} onChange={(v) => setDays(Number(v))} />
          <TextInput label="Precio (USD)" placeholder="5.00" required value={values.price} error={refused.price} onChange={(e) => setValues({ ...values, price: e.currentTarget.value })} />
        </Group>
        <Textarea label="Descripción" autosize minRows={2} value={values.description} error={refused.description} onChange={(e) => setValues({ ...values, description: e.currentTarget.value })} />
        <Group grow>
          <NumberInput label="Orden" value={values.sort_order} error={refused.sort_order} onChange={(v) => setValues({ ...values, sort_order: Number(v) })} />
          <Switch label="Visible para los clientes" checked={values.visible} onChange={(e) => setValues({ ...values, visible: e.currentTarget.checked })} mt="lg" />
        </Group>
        {/* docs/payments.md, "Guest passes": sold on a room's page, never in the catalogue; at most 7 days. */}
        <Switch
          label="Pase de invitado: lo compra el administrador de una sala para un amigo (máximo 7 días)"
          checked={values.guest_pass ?? false}
          onChange={(e) => setValues({ ...values, guest_pass: e.currentTarget.checked })}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            Cancelar
          </Button>
          <Button type="submit" loading={busy}>
            Guardar
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export function PlansPage() {
  useManagerTitle('Planes');
  const { isAdmin } = useStaff();
  const { state, reload, setData } = useRequest((signal) => managerApi.plans(signal));
  const [editing, setEditing] = useState<StaffPlan | 'new' | null>(null);
  const [busy, act, refused, clearRefused] = useAction();
  const plans = state.status === 'success' ? state.data : [];

  const save = async (values: PlanInput) => {
    const answer =
      editing === 'new'
        ? await act(() => managerApi.createPlan(values), 'Plan creado.')
        : editing
          ? await act(() => managerApi.updatePlan(editing.id, values), 'Plan actualizado.')
          : undefined;
    if (answer) {
      setData(editing === 'new' ? [...plans, answer] : plans.map((p) => (p.id === answer.id ? answer : p)));
      setEditing(null);
    }
  };
  const toggle = async (plan: StaffPlan) => {
    const answer = await act(() => managerApi.updatePlan(plan.id, { visible: !plan.visible }), plan.visible ? 'Plan ocultado.' : 'Plan visible.');
    if (answer) setData(plans.map((p) => (p.id === answer.id ? answer : p)));
  };

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Planes</Title>
        {isAdmin && <Button onClick={() => { clearRefused(); setEditing('new'); }}>Nuevo plan</Button>}
      </Group>
      {state.status === 'loading' && <LoadingState />}
      {state.status === 'error' && <SectionError message={errorMessage(state.error, 'Hubo un error al cargar los datos.')} onRetry={reload} />}
      {state.status === 'success' && (
        <RowTable
          rows={plans}
          rowKey={(plan) => plan.id}
          name={{
            header: 'Plan',
            cell: (plan) => (
              <NameWithActions
                actions={
                  isAdmin && (
                    <Group gap={4} wrap="nowrap">
                      <Button size="xs" variant="light" onClick={() => { clearRefused(); setEditing(plan); }} aria-label={`Editar ${plan.name}`}>
                        Editar
                      </Button>
                      <Button size="xs" variant="subtle" loading={busy} onClick={() => void toggle(plan)} aria-label={`${plan.visible ? 'Ocultar' : 'Mostrar'} ${plan.name}`}>
                        {plan.visible ? 'Ocultar' : 'Mostrar'}
                      </Button>
                    </Group>
                  )
                }
              >
                <Text fw={600}>{plan.name}</Text>
              </NameWithActions>
            ),
          }}
          columns={[
            { header: 'Validez', cell: (plan) => validity(plan.validity_hours), detail: (plan) => validity(plan.validity_hours) },
            { header: 'Precio', cell: (plan) => `$${plan.price} USD`, detail: (plan) => `$${plan.price} USD` },
            {
              header: 'Estado',
              cell: (plan) => (
                <Group gap={4}>
                  {plan.visible ? <Badge color="green">Visible</Badge> : <Badge color="gray">Oculto</Badge>}
                  {plan.guest_pass && <Badge color="grape">Pase de invitado</Badge>}
                </Group>
              ),
              // On a phone the name and its two buttons take the width: the state is words in the detail line.
              detail: (plan) =>
                `${plan.visible ? 'Visible para los clientes' : 'Oculto a los clientes'}${plan.guest_pass ? ' · pase de invitado' : ''}`,
            },
          ]}
        />
      )}
      {editing !== null && (
        <Modal opened onClose={() => setEditing(null)} title={editing === 'new' ? 'Nuevo plan' : `Editar ${editing.name}`}>
          <PlanForm
            initial={editing === 'new' ? EMPTY : { name: editing.name, description: editing.description, validity_hours: editing.validity_hours, price: editing.price, visible: editing.visible, sort_order: editing.sort_order, guest_pass: editing.guest_pass }}
            busy={busy}
            onSubmit={(v) => void save(v)}
            onCancel={() => setEditing(null)}
            refused={refused}
            onEdited={clearRefused}
          />
        </Modal>
      )}
    </Stack>
  );
}
