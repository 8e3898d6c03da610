import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FirmwareVersionField, MacField } from '#src/platform/common/dto-fields.js';
import { MALFORMED_JSON } from '#src/platform/http/json-body.js';
import { FieldException } from '#src/platform/http/http-error.filter.js';
import { RequestValidationPipe } from '#src/platform/http/validation.pipe.js';
import { NEXT_ROLLOUT_BODY } from './rollout.dto.js';

/** The same two fields as a class-validator DTO: how every other device body (register...) is validated. */
class ClassValidated {
  @MacField()
  mac: string;

  @FirmwareVersionField()
  firmware_version: string;
}

const pipe = new RequestValidationPipe();

type Outcome = { value: unknown } | { status: number; message: string; field?: string };

async function viaPipe(body: unknown): Promise<Outcome> {
  try {
    return { value: { ...((await pipe.transform(body, { type: 'body', metatype: ClassValidated })) as object) } };
  } catch (error) {
    return describe400(error);
  }
}

function viaSchema(body: unknown): Outcome {
  const outcome = NEXT_ROLLOUT_BODY.validate(body);
  return outcome.error === undefined ? { value: outcome.value } : describe400(outcome.error);
}

function describe400(error: unknown): Outcome {
  const status = (error as { getStatus(): number }).getStatus();
  const message = (error as Error).message;
  return error instanceof FieldException ? { status, message, field: error.field } : { status, message };
}

describe('NEXT_ROLLOUT_BODY', () => {
  it('takes what devices send: any mac notation, made canonical, and only the two fields', () => {
    assert.deepEqual(viaSchema({ mac: 'ac-67-b2-01-02-03', firmware_version: '1.10', customer_key: 'k', v_cred: 1 }), {
      value: { mac: 'AC:67:B2:01:02:03', firmware_version: '1.10' },
    });
    assert.deepEqual(viaSchema({ mac: 'ac67.b2ff.fe01.0203', firmware_version: 'é'.repeat(64) }), {
      value: { mac: 'AC:67:B2:FF:FE:01:02:03', firmware_version: 'é'.repeat(64) },
    });
  });

  it('refuses as the device interface says: 400 with a message naming the field', () => {
    const refusals: [unknown, string][] = [
      [undefined, 'Body is required'],
      [MALFORMED_JSON, 'Body is not valid JSON'],
      [['AC:67:B2:01:02:03'], 'Body must be a JSON object'],
      [{}, 'mac must be a hardware address (EUI-48 or EUI-64), e.g. AC:67:B2:01:02:03'],
      [{ mac: 'AC:67:B2:01:02', firmware_version: 10 }, 'mac must be a hardware address (EUI-48 or EUI-64), e.g. AC:67:B2:01:02:03'],
      [{ mac: 'AC:67:B2:01:02:03' }, 'firmware_version must be a string'],
      [{ mac: 'AC:67:B2:01:02:03', firmware_version: '' }, 'firmware_version must be 1 to 64 characters'],
      [{ mac: 'AC:67:B2:01:02:03', firmware_version: '1.0\u0000' }, 'firmware_version must be printable characters'],
      [{ mac: 'AC:67:B2:01:02:03', firmware_version: '1.0\uD800' }, 'firmware_version must be valid Unicode text without NUL characters'],
    ];
    for (const [body, message] of refusals) {
      const outcome = viaSchema(body);
      assert.ok('status' in outcome && outcome.status === 400, JSON.stringify(body));
      assert.equal(outcome.message, message, JSON.stringify(body));
    }
  });

  it('gives every body the outcome the class-validator fields give (value or 400, message and field)', async () => {
    const text = fc.oneof(
      fc.constantFrom('AC:67:B2:01:02:03', 'ac-67-b2-01-02-03', 'ac67.b201.0203', 'AC67B2010203AABB', 'AC:67:B2:01:02', '', '1.0.0'),
      fc.string({ maxLength: 70, unit: 'binary' }),
      fc.string({ minLength: 60, maxLength: 70 }),
      fc.string({ maxLength: 5, unit: fc.constantFrom('a', '\u0000', '\u0007', '\uD800', '\uDC00', '😀', '\uFE0F', ' ') }),
    );
    const value = fc.oneof(text, fc.constant(undefined), fc.constant(null), fc.integer(), fc.boolean(), fc.array(text, { maxLength: 2 }));
    const body = fc.oneof(
      fc.record({ mac: value, firmware_version: value, extra: value }, { requiredKeys: [] }),
      value,
      fc.constant(MALFORMED_JSON),
    );
    await fc.assert(
      fc.asyncProperty(body, async (sent) => {
        assert.deepEqual(viaSchema(sent), await viaPipe(sent));
      }),
      { numRuns: 3000 },
    );
  });
});
