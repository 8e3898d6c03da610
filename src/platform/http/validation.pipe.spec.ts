import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationPipe, type ArgumentMetadata } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsInt, IsString, ValidateNested } from 'class-validator';
import { LoginDto } from '#src/protocols/asvin/auth/dto/login.dto.js';
import { FieldException } from './http-error.filter.js';
import { bodyShortcut, RequestValidationPipe } from './validation.pipe.js';

const pipe = new RequestValidationPipe();

/** The full class-transformer/class-validator path, without any shortcut. */
async function fully(body: unknown, metatype: ArgumentMetadata['metatype']): Promise<{ value?: unknown; error?: string }> {
  try {
    return {
      value: await (ValidationPipe.prototype.transform as RequestValidationPipe['transform']).call(pipe, body, { type: 'body', metatype }),
    };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

async function viaPipe(body: unknown, metatype: ArgumentMetadata['metatype']): Promise<{ value?: unknown; error?: string }> {
  try {
    return { value: await pipe.transform(body, { type: 'body', metatype }) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** Every body gives the same DTO or the same 400 with and without the shortcut. */
async function assertSameAsFull(dto: new () => object, bodies: Record<string, unknown>[]): Promise<number> {
  let shortcutTaken = 0;
  for (const body of bodies) {
    const expected = await fully(body, dto);
    const actual = await viaPipe(body, dto);
    const label = JSON.stringify(body);
    assert.deepEqual(actual, expected, label);
    if (actual.value !== undefined) assert.equal(Object.getPrototypeOf(actual.value), dto.prototype, label);
    const shortcut = bodyShortcut(dto)!(body);
    if (shortcut !== undefined) {
      assert.ok(expected.value !== undefined, `shortcut accepted what full validation refuses: ${label}`);
      shortcutTaken++;
    }
  }
  return shortcutTaken;
}

describe('RequestValidationPipe body shortcuts', () => {
  it('login: same DTO or same 400 as full validation', async () => {
    const signature = 'c5269637a29a81fd2faac23e5554cdf722d521ee377033c83a866d8cfbb7e80d';
    const bodies: Record<string, unknown>[] = [
      { device_key: 'mydevicekey', timestamp: 1700000000, device_signature: signature },
      { device_key: 'mydevicekey', timestamp: '1700000000', device_signature: signature.toUpperCase() },
      { device_key: 'mydevicekey', timestamp: '01700000000', device_signature: signature, extra: true },
      { device_key: 'mydevicekey', timestamp: 0, device_signature: signature },
      { device_key: 'mydevicekey', timestamp: -1, device_signature: signature },
      { device_key: 'mydevicekey', timestamp: 1.5, device_signature: signature },
      { device_key: 'mydevicekey', timestamp: '17e8', device_signature: signature },
      { device_key: 'mydevicekey', timestamp: '99999999999999999', device_signature: signature },
      { device_key: 'mydevicekey', timestamp: Number.MAX_SAFE_INTEGER + 1, device_signature: signature },
      { device_key: 'mydevicekey', timestamp: null, device_signature: signature },
      { device_key: '', timestamp: 1700000000, device_signature: signature },
      { device_key: 'k'.repeat(129), timestamp: 1700000000, device_signature: signature },
      { device_key: 'ключ', timestamp: 1700000000, device_signature: signature },
      { device_key: 'mydevicekey', timestamp: 1700000000, device_signature: 's'.repeat(257) },
      { device_key: 'mydevicekey', timestamp: 1700000000 },
      { timestamp: 1700000000, device_signature: signature },
    ];
    assert.equal(await assertSameAsFull(LoginDto, bodies), 4);
  });
});

class Part {
  @IsString({ message: 'part.name must be a string' })
  name: string;
}

class Order {
  @IsInt({ message: 'count must be a whole number' })
  count: number;

  @ValidateNested()
  @Type(() => Part)
  part: Part;
}

/** What the pipe refuses `value` with: the exception's class, message and field. */
async function refusal(value: unknown, metadata: ArgumentMetadata): Promise<{ type: string; message: string; field?: string }> {
  try {
    await pipe.transform(value, metadata);
  } catch (error) {
    const { message } = error as Error;
    return error instanceof FieldException
      ? { type: 'FieldException', message, field: error.field }
      : { type: (error as Error).name, message };
  }
  assert.fail(`accepted ${JSON.stringify(value)}`);
}

describe('RequestValidationPipe refusals name the field', () => {
  it('names the body field whose constraint failed, a nested one by its dotted path', async () => {
    const body = { type: 'body', metatype: Order } as const;
    assert.deepEqual(await refusal({ count: 'x', part: { name: 'a' } }, body), {
      type: 'FieldException',
      message: 'count must be a whole number',
      field: 'count',
    });
    assert.deepEqual(await refusal({ count: 1, part: { name: 7 } }, body), {
      type: 'FieldException',
      message: 'part.name must be a string',
      field: 'part.name',
    });
  });

  it('names the body field, query parameter or path parameter holding unstorable text', async () => {
    assert.deepEqual(await refusal({ count: 1, part: { name: 'a\u0000' } }, { type: 'body', metatype: Order }), {
      type: 'FieldException',
      message: 'part.name must be valid Unicode text without NUL characters',
      field: 'part.name',
    });
    assert.deepEqual(await refusal('acme\uD800', { type: 'param', data: 'tenant' }), {
      type: 'FieldException',
      message: 'tenant must be valid Unicode text without NUL characters',
      field: 'tenant',
    });
  });

  it('names no field for a body that is not an object or is missing', async () => {
    assert.deepEqual(await refusal([1], { type: 'body', metatype: Order }), {
      type: 'BadRequestException',
      message: 'Body must be a JSON object',
    });
    assert.deepEqual(await refusal(undefined, { type: 'body', metatype: Order }), {
      type: 'BadRequestException',
      message: 'Body is required',
    });
  });
});
