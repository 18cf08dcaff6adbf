// The shape of GET /api/alarms and POST /api/alarms/<id>/acknowledge (api/alarms/routes.ts).
export type AlarmState = 'active' | 'acknowledged' | 'cleared';

export interface Alarm {
  id: number;
  kind: string;
  label: string | null;
  class: 'operations' | 'maintenance' | null;
  IMEINumber: string;
  Real_Name: string | null;
  PowerLineID: string | null;
  codeText: string | null;
  raised_at: string;
  acknowledged_at: string | null;
  acknowledged_by: string | null;
  cleared_at: string | null;
  state: AlarmState;
}

export interface Acknowledged { id: number; acknowledged_at: string }
