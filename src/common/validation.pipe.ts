import { ArgumentMetadata, BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';
import { ErrorMessages } from './http-error.filter.js';
import { MALFORMED_JSON } from './json-body.js';

const BodyMessages = {
  missing: 'Body is required',
  notObject: 'Body must be a JSON object',
} as const;

/**
 * The global validation pipe (CONTRACT.md §3): malformed JSON and a missing body are 400;
 * a missing, mistyped or out-of-bounds field is 400 with a message that names the field;
 * unknown extra fields are dropped, never rejected (CONTRACT.md §1).
 */
export class RequestValidationPipe extends ValidationPipe {
  constructor() {
    super({
      transform: true,
      whitelist: true,
      forbidNonWhitelisted: false,
      stopAtFirstError: true,
      validationError: { target: false, value: false },
      exceptionFactory: (errors) => new BadRequestException(firstMessage(errors)),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // A single path parameter reaches its own pipe (MacParamPipe, IdParamPipe...) as the text it
    // was sent as: ValidationPipe would turn `1e3` into 1000 before that pipe could refuse it.
    if (metadata.type === 'param' && metadata.data !== undefined) return value;
    if (metadata.type === 'body') {
      if (value === MALFORMED_JSON) throw new BadRequestException(ErrorMessages.malformedJson);
      if (metadata.metatype && metadata.metatype !== Object && (value === undefined || value === null)) {
        throw new BadRequestException(BodyMessages.missing);
      }
      if (metadata.metatype && metadata.metatype !== Object && (typeof value !== 'object' || Array.isArray(value))) {
        throw new BadRequestException(BodyMessages.notObject);
      }
    }
    return super.transform(value, metadata);
  }
}

function firstMessage(errors: ValidationError[]): string {
  for (const error of errors) {
    const constraint = error.constraints && Object.values(error.constraints)[0];
    if (constraint) return constraint;
    if (error.children?.length) return firstMessage(error.children);
  }
  return 'Invalid request';
}
